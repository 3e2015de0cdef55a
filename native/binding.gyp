{
  "targets": [
    {
      "target_name": "parse",
      "variables": {
        "tree_sitter": "<!(node sources.js library)"
      },
      "sources": ["src/parse.c", "src/layout.c", "src/tree-sitter.c"],
      "include_dirs": ["<(tree_sitter)/include", "<(tree_sitter)/src"],
      "defines": ["NAPI_VERSION=8", "_POSIX_C_SOURCE=200112L", "_DEFAULT_SOURCE"],
      "cflags_c": ["-std=c11", "-O2"],
      "xcode_settings": { "OTHER_CFLAGS": ["-std=c11"] }
    }
  ]
}
