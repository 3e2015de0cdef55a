/* tree-sitter's own library, as the tree-sitter package vendors it (the version its binding uses). */
#include "lib.c"
