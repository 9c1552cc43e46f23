// Another translation unit of the same program that names the helper: it
// may use what the helper returns as device memory.
#include <cuda.h>

namespace demo {
CUtensorMap *stage_map();
}

int count_staged() { return demo::stage_map() != nullptr; }
