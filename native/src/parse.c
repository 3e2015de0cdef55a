/*
 * tree-sitter parses off the JavaScript thread: `parse(language, text, ranges)` copies the text,
 * parses it on libuv's thread pool and resolves with the tree as flat arrays, so that reading a
 * node is an array read rather than a call into native code.
 *
 * The tree, in preorder (the root first), one entry per visible node, as Int32 columns of one
 * buffer, each `count` long: start, end (UTF-16 offsets), parent, next sibling, previous sibling
 * (-1 for none), and meta: the symbol (bits 0-15), the field the node fills in its parent (bits
 * 16-23), named (bit 24), missing (bit 25).
 *
 * Note: pipeline/parse-binding.ts reads tree-sitter's node binding into the same columns, for where
 * the addon does not load (test/parse.test.ts compares them).
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "layout.h"
#ifndef _WIN32
#include <sys/mman.h>
#endif

#define COLUMNS 6

/* "tree-sitter", "language" hashed with BLAKE2: the tag tree-sitter's language bindings set. */
static const napi_type_tag LANGUAGE_TYPE_TAG = {0x8AF2E5212AD58ABF, 0xD5006CAD83ABBA16};

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  const TSLanguage *language;
  uint16_t *text;
  size_t length;
  TSRange *ranges;
  uint32_t range_count;
  int32_t *nodes;
  uint32_t count;
  /* The nodes the columns were mapped for. */
  uint32_t capacity;
  int has_error;
  const char *failure;
} Job;

/* Throws "native call failed: <call>" unless a JavaScript error is already pending. */
static void throw_failed(napi_env env, const char *call) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  char message[160];
  snprintf(message, sizeof message, "native call failed: %s", call);
  napi_throw_error(env, NULL, message);
}

/* A Node-API call that must succeed: else a JavaScript error, and on to the function's `fail:`. */
#define CHECK(call)                  \
  do {                               \
    if ((call) != napi_ok) {         \
      throw_failed(env, #call);      \
      goto fail;                     \
    }                                \
  } while (0)

/*
 * The grammar the `tree-sitter-rust` package exports (its `language`: an external that tree-sitter's
 * language bindings tag), or NULL with a JavaScript error naming `what` and the fix.
 * Note: the language is checked here once per call, so that the columns can rely on it: an ABI
 * this library reads, and symbol and field ids that fit their bits in `meta`.
 */
static const TSLanguage *language_of(napi_env env, napi_value value, const char *what) {
  char message[320];
  napi_valuetype type = napi_undefined;
  if (value != NULL && napi_typeof(env, value, &type) != napi_ok) type = napi_undefined;
  if (type == napi_object) {
    napi_value inner;
    if (napi_get_named_property(env, value, "language", &inner) != napi_ok || napi_typeof(env, inner, &type) != napi_ok) type = napi_undefined;
    else value = inner;
  }
  bool tagged = false;
  void *data = NULL;
  if (type != napi_external || napi_check_object_type_tag(env, value, &LANGUAGE_TYPE_TAG, &tagged) != napi_ok || !tagged || napi_get_value_external(env, value, &data) != napi_ok || data == NULL) {
    snprintf(message, sizeof message,
             "%s: the grammar must be a tree-sitter language, an external tagged as tree-sitter's language bindings tag it (the `language` of `tree-sitter-rust`); reinstall the locked dependencies (`npm ci`)", what);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  const TSLanguage *language = data;
  uint32_t version = ts_language_version(language);
  if (version < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION || version > TREE_SITTER_LANGUAGE_VERSION) {
    snprintf(message, sizeof message, "%s: the grammar is of tree-sitter ABI %u, this addon's tree-sitter library reads %d to %d; rebuild the addon against the installed `tree-sitter` (`npm run build:native`)", what,
             version, TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION, TREE_SITTER_LANGUAGE_VERSION);
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  if (ts_language_symbol_count(language) > 0xffff || ts_language_field_count(language) > 0xff) {
    snprintf(message, sizeof message, "%s: the grammar has %u symbols and %u fields; the tree's columns hold 65535 and 255", what, ts_language_symbol_count(language), ts_language_field_count(language));
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  return language;
}

/*
 * The columns' memory: mapped pages, not the heap. The columns are made on a pool thread and
 * freed on the JavaScript thread; with malloc, each side would take the other's arena lock, and
 * on a busy machine wait for it whenever the other is descheduled while holding it.
 */
static int32_t *map_columns(size_t bytes) {
#ifdef _WIN32
  return malloc(bytes);
#else
  void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
#endif
}

static void unmap_columns(void *memory, size_t bytes) {
#ifdef _WIN32
  (void)bytes;
  free(memory);
#else
  munmap(memory, bytes);
#endif
}

static void flatten(Job *job, TSTree *tree) {
  TSNode root = ts_tree_root_node(tree);
  job->has_error = ts_node_has_error(root);
  /* The nodes a cursor visits: the root and its visible descendants. */
  uint32_t count = ts_node_descendant_count(root);
  job->nodes = map_columns((size_t)count * COLUMNS * sizeof(int32_t));
  if (job->nodes == NULL) {
    job->failure = "out of memory";
    return;
  }
  int32_t *start = job->nodes, *end = start + count, *parents = end + count, *next = parents + count, *prev = next + count, *meta = prev + count;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  /* The open ancestors and, for each, its last child so far (pairs), grown as the tree deepens. */
  size_t room = 256;
  int32_t *open = malloc(room * 2 * sizeof(int32_t));
  size_t depth = 0;
  if (open == NULL) job->failure = "out of memory";
  while (job->failure == NULL) {
    if (job->count == count) {
      job->failure = "the tree has more nodes than it counts";
      break;
    }
    TSNode node = ts_tree_cursor_current_node(&cursor);
    int32_t n = (int32_t)job->count++;
    int32_t before = depth > 0 ? open[2 * depth - 1] : -1;
    start[n] = (int32_t)(ts_node_start_byte(node) / 2);
    end[n] = (int32_t)(ts_node_end_byte(node) / 2);
    parents[n] = depth > 0 ? open[2 * depth - 2] : -1;
    next[n] = -1;
    prev[n] = before;
    /* The symbol and the field fit their bits: `language_of` checked the grammar's counts. */
    meta[n] = (int32_t)(ts_node_symbol(node) | ((uint32_t)ts_tree_cursor_current_field_id(&cursor) << 16) | ((uint32_t)ts_node_is_named(node) << 24) |
                        ((uint32_t)ts_node_is_missing(node) << 25));
    if (before >= 0) next[before] = n;
    if (depth > 0) open[2 * depth - 1] = n;
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      if (depth == room) {
        int32_t *grown = realloc(open, room * 4 * sizeof(int32_t));
        if (grown == NULL) {
          job->failure = "out of memory";
          break;
        }
        open = grown;
        room *= 2;
      }
      open[2 * depth] = n;
      open[2 * depth + 1] = -1;
      depth++;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (depth == 0 || !ts_tree_cursor_goto_parent(&cursor)) goto done;
      depth--;
    }
  }
done:
  free(open);
  ts_tree_cursor_delete(&cursor);
  if (job->failure == NULL && job->count != count) job->failure = "the tree has fewer nodes than it counts";
  job->capacity = count;
}

static void execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  TSParser *parser = ts_parser_new();
  if (!ts_parser_set_language(parser, job->language)) {
    job->failure = "incompatible language version";
  } else if (job->range_count > 0 && !ts_parser_set_included_ranges(parser, job->ranges, job->range_count)) {
    job->failure = "included ranges overlap or are out of order";
  } else {
    TSTree *tree = ts_parser_parse_string_encoding(parser, NULL, (const char *)job->text, (uint32_t)(job->length * 2), TSInputEncodingUTF16LE);
    if (tree == NULL) job->failure = "the parse did not finish";
    else {
      flatten(job, tree);
      ts_tree_delete(tree);
    }
  }
  ts_parser_delete(parser);
}

static void release(napi_env env, void *data, void *hint) {
  (void)env;
  unmap_columns(data, (size_t)(uintptr_t)hint);
}

static void free_job(Job *job) {
  free(job->text);
  free(job->ranges);
  free(job);
}

/* The flat tree's object { nodes, count, hasError }, or NULL. The columns go to it, or are unmapped. */
static napi_value tree_object(napi_env env, Job *job, size_t mapped) {
  napi_value result, buffer, count, has_error;
  size_t bytes = (size_t)job->count * COLUMNS * sizeof(int32_t);
  if (napi_create_external_arraybuffer(env, job->nodes, bytes, release, (void *)(uintptr_t)mapped, &buffer) != napi_ok) {
    /* Where external buffers are not allowed: a copy. */
    void *copy = NULL;
    napi_status copied = napi_create_arraybuffer(env, bytes, &copy, &buffer);
    if (copied == napi_ok && (copy != NULL || bytes == 0)) memcpy(copy, job->nodes, bytes);
    unmap_columns(job->nodes, mapped);
    if (copied != napi_ok || (copy == NULL && bytes > 0)) return NULL;
  }
  if (napi_create_object(env, &result) != napi_ok || napi_create_uint32(env, job->count, &count) != napi_ok || napi_get_boolean(env, job->has_error, &has_error) != napi_ok ||
      napi_set_named_property(env, result, "nodes", buffer) != napi_ok || napi_set_named_property(env, result, "count", count) != napi_ok ||
      napi_set_named_property(env, result, "hasError", has_error) != napi_ok)
    return NULL;
  return result;
}

/* Settles the parse's promise: the flat tree, or an error saying what went wrong. */
static void complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  size_t mapped = (size_t)job->capacity * COLUMNS * sizeof(int32_t);
  const char *failure = status != napi_ok ? "the parse was cancelled" : job->failure;
  napi_value result = NULL;
  if (failure == NULL) {
    result = tree_object(env, job, mapped);
    if (result == NULL) failure = "out of memory for the tree's columns";
  } else if (job->nodes != NULL) {
    unmap_columns(job->nodes, mapped);
  }
  if (result != NULL) {
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    napi_value message, error;
    if (napi_create_string_utf8(env, failure, NAPI_AUTO_LENGTH, &message) == napi_ok && napi_create_error(env, NULL, message, &error) == napi_ok) napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_async_work(env, job->work);
  free_job(job);
}

/* The ranges argument, in tree-sitter's units (bytes of UTF-16); 0 with a JavaScript error pending. */
static int read_ranges(napi_env env, napi_value value, Job *job) {
  bool typed = false;
  napi_typedarray_type kind;
  size_t length = 0;
  void *values = NULL;
  CHECK(napi_is_typedarray(env, value, &typed));
  if (!typed) return 1;
  CHECK(napi_get_typedarray_info(env, value, &kind, &length, &values, NULL, NULL));
  if (kind != napi_int32_array || length % 6 != 0) {
    napi_throw_type_error(env, NULL, "parse: the ranges must be an Int32Array of 6 numbers per range");
    return 0;
  }
  job->range_count = (uint32_t)(length / 6);
  if (job->range_count == 0) return 1;
  job->ranges = malloc(job->range_count * sizeof(TSRange));
  if (job->ranges == NULL) {
    napi_throw_error(env, NULL, "parse: out of memory for the ranges");
    return 0;
  }
  const int32_t *r = values;
  for (uint32_t i = 0; i < job->range_count; i++, r += 6) {
    job->ranges[i] = (TSRange){
        .start_byte = (uint32_t)r[0] * 2,
        .end_byte = (uint32_t)r[1] * 2,
        .start_point = {(uint32_t)r[2], (uint32_t)r[3] * 2},
        .end_point = {(uint32_t)r[4], (uint32_t)r[5] * 2},
    };
  }
  return 1;
fail:
  return 0;
}

/* parse(language, text, ranges?: Int32Array of [startIndex, endIndex, startRow, startColumn, endRow, endColumn]…) */
static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  Job *job = NULL;
  napi_value promise = NULL, name;
  napi_valuetype type;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const TSLanguage *language = language_of(env, argc > 0 ? argv[0] : NULL, "parse");
  if (language == NULL) goto fail;
  if (argc < 2 || napi_typeof(env, argv[1], &type) != napi_ok || type != napi_string) {
    napi_throw_type_error(env, NULL, "parse: the text must be a string");
    goto fail;
  }
  job = calloc(1, sizeof(Job));
  if (job == NULL) {
    napi_throw_error(env, NULL, "parse: out of memory");
    goto fail;
  }
  job->language = language;
  CHECK(napi_get_value_string_utf16(env, argv[1], NULL, 0, &job->length));
  job->text = malloc((job->length + 1) * sizeof(uint16_t));
  if (job->text == NULL) {
    napi_throw_error(env, NULL, "parse: out of memory for the text");
    goto fail;
  }
  CHECK(napi_get_value_string_utf16(env, argv[1], (char16_t *)job->text, job->length + 1, &job->length));
  if (argc > 2 && !read_ranges(env, argv[2], job)) goto fail;
  CHECK(napi_create_string_utf8(env, "tree-sitter parse", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_async_work(env, NULL, name, execute, complete, job, &job->work));
  if (napi_create_promise(env, &job->deferred, &promise) != napi_ok) {
    napi_delete_async_work(env, job->work);
    throw_failed(env, "napi_create_promise");
    goto fail;
  }
  if (napi_queue_async_work(env, job->work) != napi_ok) {
    /* The promise exists: it is rejected, the job undone. */
    napi_value message, error;
    napi_delete_async_work(env, job->work);
    if (napi_create_string_utf8(env, "parse: the parse could not be queued", NAPI_AUTO_LENGTH, &message) == napi_ok && napi_create_error(env, NULL, message, &error) == napi_ok)
      napi_reject_deferred(env, job->deferred, error);
    free_job(job);
  }
  return promise;
fail:
  if (job != NULL) free_job(job);
  return NULL;
}

static uint32_t symbol_count(const TSLanguage *language) {
  return ts_language_symbol_count(language);
}

static const char *symbol_name(const TSLanguage *language, uint32_t id) {
  return ts_language_symbol_name(language, (TSSymbol)id);
}

/* Field ids start at 1: 0 is "no field". */
static uint32_t field_count(const TSLanguage *language) {
  return ts_language_field_count(language) + 1;
}

static const char *field_name(const TSLanguage *language, uint32_t id) {
  return id == 0 ? NULL : ts_language_field_name_for_id(language, (TSFieldId)id);
}

/* The names of a language's ids, by id ("" where there is none), for `what` in messages. */
static napi_value name_table(napi_env env, napi_callback_info info, const char *what, uint32_t (*count_of)(const TSLanguage *), const char *(*name_of)(const TSLanguage *, uint32_t)) {
  size_t argc = 1;
  napi_value argv[1];
  napi_value out;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const TSLanguage *language = language_of(env, argc > 0 ? argv[0] : NULL, what);
  if (language == NULL) goto fail;
  uint32_t count = count_of(language);
  CHECK(napi_create_array_with_length(env, count, &out));
  for (uint32_t i = 0; i < count; i++) {
    const char *text = name_of(language, i);
    napi_value name;
    CHECK(napi_create_string_utf8(env, text != NULL ? text : "", NAPI_AUTO_LENGTH, &name));
    CHECK(napi_set_element(env, out, i, name));
  }
  return out;
fail:
  return NULL;
}

/* symbolNames(language): each symbol's name, by symbol id (the node types). */
static napi_value symbol_names(napi_env env, napi_callback_info info) {
  return name_table(env, info, "symbolNames", symbol_count, symbol_name);
}

/* fieldNames(language): each field's name, by field id (0, no field, is ""). */
static napi_value field_names(napi_env env, napi_callback_info info) {
  return name_table(env, info, "fieldNames", field_count, field_name);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"parse", NULL, parse, NULL, NULL, NULL, napi_default, NULL},
      {"symbolNames", NULL, symbol_names, NULL, NULL, NULL, napi_default, NULL},
      {"fieldNames", NULL, field_names, NULL, NULL, NULL, napi_default, NULL},
      {"layout", NULL, layout, NULL, NULL, NULL, napi_default, NULL},
      {"identClasses", NULL, ident_classes, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties) != napi_ok) return NULL;
  return exports;
}
