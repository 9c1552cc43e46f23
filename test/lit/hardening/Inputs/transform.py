"""Applies one byte-level change to a CUDA file, for the hardening tests.

    python3 transform.py MODE IN OUT
    python3 transform.py endings FILE     (prints crlf=N lf=N cr=N)
    python3 transform.py endings-kept ORIG NEW

The same change applied to an original and to its rewritten form gives the
input of a test and the file the tool must produce from it, so each test
compares the whole output byte for byte. Every mode keeps the lines the tool
edits recognisable (they are found by their text in both forms).
"""
import sys

LONG = b"x" * 20000


def crlf(s):
    return s.replace(b"\n", b"\r\n")


def cr(s):
    return s.replace(b"\n", b"\r")


def mixed(s):
    # Odd lines end in CRLF, even ones in LF.
    lines = s.split(b"\n")
    out = b""
    for i, line in enumerate(lines[:-1]):
        out += line + (b"\r\n" if i % 2 else b"\n")
    return out + lines[-1]


def bom(s):
    return b"\xef\xbb\xbf" + s


def tabs(s):
    # Indentation and the blanks between parameter tokens become tabs.
    out = []
    for line in s.split(b"\n"):
        if line.startswith(b"  "):
            line = b"\t" + line[2:]
        out.append(line)
    s = b"\n".join(out)
    return s.replace(b", int *out)", b",\tint\t*out)").replace(b"int main() {", b"int\tmain()\t{")


def latin1(s):
    # Bytes that are not UTF-8 in comments: Latin-1, a lone continuation
    # byte, 0xFF/0xFE, an overlong encoding and a truncated sequence.
    s = s.replace(b"#include <cuda_runtime.h>\n",
                  b"#include <cuda_runtime.h> /* caf\xe9 \xe0 la cr\xe8me */\n"
                  b"// \xff\xfe invalid: \x80 \xc0\xaf \xc3\x28 \xe2\x82 end\n", 1)
    s = s.replace(b"  out[0] = 1;", b"  out[0] = 1; // r\xe9sultat \x81\x8d\x8f\x90\x9d", 1)
    s = s.replace(b"  return 0;", b"  /* \xa0\xa9\xb5 */ return 0; // \xf8\x88\x80\x80\x80", 1)
    return s


def nul(s):
    # NUL bytes in comments.
    s = s.replace(b"int main() {", b"// a \x00 in a line comment\nint main() { /* and \x00\x00 here */", 1)
    return s


def noeol(s):
    return s.rstrip(b"\n")


def long(s):
    # Lines of 20 000+ characters: a comment after the kernel's signature, a
    # 5 001-term expression in its body, a comment after the launch, and
    # 20 000 characters before the descriptor parameter on its line.
    s = s.replace(b"__global__ void k(", b"/* " + LONG + b" */ __global__ void k(", 1)
    s = s.replace(b"int *out) {", b"int *out) { /* " + LONG + b" */", 1)
    s = s.replace(b"  out[0] = 1;", b"  out[0] = 0" + b" + 1" * 5000 + b";", 1)
    s = s.replace(b"(h, out);", b"(h, out); // " + LONG, 1)
    s = s.replace(b"(d, out);", b"(d, out); // " + LONG, 1)
    return s


MODES = {f.__name__: f for f in (crlf, cr, mixed, bom, tabs, latin1, nul, noeol, long)}

def endings(path):
    """Prints how the lines of PATH end: 'crlf=N lf=N cr=N'."""
    with open(path, "rb") as f:
        data = f.read()
    crlf_n = data.count(b"\r\n")
    print("crlf=%d lf=%d cr=%d" % (crlf_n, data.count(b"\n") - crlf_n, data.count(b"\r") - crlf_n))


def split_keep(data):
    """Lines with their endings (LF, CRLF or CR)."""
    out, start, i = [], 0, 0
    while i < len(data):
        if data[i:i + 2] == b"\r\n":
            out.append((data[start:i], b"\r\n"))
            i += 2
            start = i
        elif data[i:i + 1] in (b"\n", b"\r"):
            out.append((data[start:i], data[i:i + 1]))
            i += 1
            start = i
        else:
            i += 1
    if start < len(data):
        out.append((data[start:], b""))
    return out


def endings_kept(orig_path, new_path):
    """Each line of NEW that comes from a line of ORIG (same line, or a line
    changed in place) has that line's ending. Lines are matched as diff does,
    on their first 12 bytes. Prints 'endings kept' or the first mismatch."""
    import difflib
    with open(orig_path, "rb") as f:
        a = split_keep(f.read())
    with open(new_path, "rb") as f:
        b = split_keep(f.read())
    m = difflib.SequenceMatcher(None, [t[:12] for t, _ in a], [t[:12] for t, _ in b], autojunk=False)
    pairs = 0
    for op, i1, i2, j1, j2 in m.get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            for i, j in zip(range(i1, i2), range(j1, j2)):
                pairs += 1
                if a[i][1] != b[j][1]:
                    print("line %d (was %d) ends in %r, was %r" % (j + 1, i + 1, b[j][1], a[i][1]))
                    return
        elif op in ("insert", "replace"):
            print("lines %d-%d are new" % (j1 + 1, j2))
            return
    print("endings kept (%d lines)" % pairs)


if __name__ == "__main__":
    if sys.argv[1] == "endings":  # python3 transform.py endings FILE
        endings(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "endings-kept":  # python3 transform.py endings-kept ORIG NEW
        endings_kept(sys.argv[2], sys.argv[3])
        sys.exit(0)
    mode, src, dst = sys.argv[1:4]
    with open(src, "rb") as f:
        data = f.read()
    with open(dst, "wb") as f:
        f.write(MODES[mode](data))
