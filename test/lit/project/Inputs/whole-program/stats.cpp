// Another translation unit of the same program: host code only.
int count_runs(int n) { return n + 1; }
