/*
 * tree-sitter parses off the JavaScript thread: `parse(language, text, ranges)` copies the text,
 * parses it on libuv's thread pool and resolves with the tree as flat arrays, so that reading a
 * node is an array read rather than a call into native code.
 *
 * The tree, in preorder (the root first), one entry per visible node, as Int32 columns of one
 * buffer, each `count` long: start, end (UTF-16 offsets), parent, next sibling, previous sibling
 * (-1 for none), and meta: the symbol (bits 0-15), the field the node fills in its parent (bits
 * 16-23), named (bit 24), missing (bit 25).
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* SCHED_BATCH */
#endif
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
#ifdef __linux__
#include <sched.h>
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

#define CHECK(call)                                       \
  do {                                                    \
    if ((call) != napi_ok) {                              \
      napi_throw_error(env, NULL, "native call failed: " #call); \
      return NULL;                                        \
    }                                                     \
  } while (0)

static const TSLanguage *language_of(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok) return NULL;
  if (type == napi_object) {
    napi_value inner;
    if (napi_get_named_property(env, value, "language", &inner) != napi_ok) return NULL;
    value = inner;
    if (napi_typeof(env, value, &type) != napi_ok) return NULL;
  }
  if (type != napi_external) return NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, value, &LANGUAGE_TYPE_TAG, &tagged) != napi_ok || !tagged) return NULL;
  void *data = NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok) return NULL;
  return (const TSLanguage *)data;
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
    meta[n] = (int32_t)(ts_node_symbol(node) | ((uint32_t)(ts_tree_cursor_current_field_id(&cursor) & 0xff) << 16) | ((uint32_t)ts_node_is_named(node) << 24) |
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

/*
 * Where the system allows it, a thread of the pool that parses is scheduled as a batch thread:
 * one that the calling thread wakes does not take its core from it at once. On a busy two-core
 * machine it did, and each `parse` call then waited for a parse (339 calls on burn: 35–50 ms of
 * the JavaScript thread's time, against 14 ms).
 */
static void as_batch_thread(void) {
#ifdef __linux__
  static _Thread_local int done = 0;
  if (done) return;
  done = 1;
  struct sched_param param = {0};
  sched_setscheduler(0, SCHED_BATCH, &param);
#endif
}

static void execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  as_batch_thread();
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

static void complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  napi_value result = NULL;
  napi_value error = NULL;
  size_t mapped = (size_t)job->capacity * COLUMNS * sizeof(int32_t);
  if (status != napi_ok || job->failure != NULL) {
    napi_value message;
    napi_create_string_utf8(env, job->failure != NULL ? job->failure : "the parse was cancelled", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    if (job->nodes != NULL) unmap_columns(job->nodes, mapped);
  } else {
    napi_value buffer, count, has_error;
    size_t bytes = (size_t)job->count * COLUMNS * sizeof(int32_t);
    napi_create_object(env, &result);
    if (napi_create_external_arraybuffer(env, job->nodes, bytes, release, (void *)(uintptr_t)mapped, &buffer) != napi_ok) {
      /* Where external buffers are not allowed: a copy. */
      void *copy;
      napi_create_arraybuffer(env, bytes, &copy, &buffer);
      memcpy(copy, job->nodes, bytes);
      unmap_columns(job->nodes, mapped);
    }
    napi_create_uint32(env, job->count, &count);
    napi_get_boolean(env, job->has_error, &has_error);
    napi_set_named_property(env, result, "nodes", buffer);
    napi_set_named_property(env, result, "count", count);
    napi_set_named_property(env, result, "hasError", has_error);
  }
  if (error != NULL) napi_reject_deferred(env, job->deferred, error);
  else napi_resolve_deferred(env, job->deferred, result);
  napi_delete_async_work(env, job->work);
  free(job->text);
  free(job->ranges);
  free(job);
}

/* parse(language, text, ranges?: Int32Array of [startIndex, endIndex, startRow, startColumn, endRow, endColumn]…) */
static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const TSLanguage *language = argc > 0 ? language_of(env, argv[0]) : NULL;
  if (language == NULL) {
    napi_throw_type_error(env, NULL, "parse: the first argument must be a tree-sitter language");
    return NULL;
  }
  napi_valuetype type;
  CHECK(napi_typeof(env, argv[1], &type));
  if (type != napi_string) {
    napi_throw_type_error(env, NULL, "parse: the text must be a string");
    return NULL;
  }
  Job *job = calloc(1, sizeof(Job));
  if (job == NULL) {
    napi_throw_error(env, NULL, "parse: out of memory");
    return NULL;
  }
  job->language = language;
  CHECK(napi_get_value_string_utf16(env, argv[1], NULL, 0, &job->length));
  job->text = malloc((job->length + 1) * sizeof(uint16_t));
  CHECK(napi_get_value_string_utf16(env, argv[1], (char16_t *)job->text, job->length + 1, &job->length));
  if (argc > 2) {
    bool typed = false;
    CHECK(napi_is_typedarray(env, argv[2], &typed));
    if (typed) {
      napi_typedarray_type kind;
      size_t length;
      void *values;
      CHECK(napi_get_typedarray_info(env, argv[2], &kind, &length, &values, NULL, NULL));
      if (kind != napi_int32_array || length % 6 != 0) {
        free(job->text);
        free(job);
        napi_throw_type_error(env, NULL, "parse: the ranges must be an Int32Array of 6 numbers per range");
        return NULL;
      }
      const int32_t *r = values;
      job->range_count = (uint32_t)(length / 6);
      job->ranges = malloc((job->range_count ? job->range_count : 1) * sizeof(TSRange));
      for (uint32_t i = 0; i < job->range_count; i++, r += 6) {
        job->ranges[i] = (TSRange){
            .start_byte = (uint32_t)r[0] * 2,
            .end_byte = (uint32_t)r[1] * 2,
            .start_point = {(uint32_t)r[2], (uint32_t)r[3] * 2},
            .end_point = {(uint32_t)r[4], (uint32_t)r[5] * 2},
        };
      }
    }
  }
  napi_value promise, name;
  CHECK(napi_create_promise(env, &job->deferred, &promise));
  CHECK(napi_create_string_utf8(env, "tree-sitter parse", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_async_work(env, NULL, name, execute, complete, job, &job->work));
  CHECK(napi_queue_async_work(env, job->work));
  return promise;
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
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const TSLanguage *language = argc > 0 ? language_of(env, argv[0]) : NULL;
  if (language == NULL) {
    char message[96];
    snprintf(message, sizeof message, "%s: the argument must be a tree-sitter language", what);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  uint32_t count = count_of(language);
  napi_value out;
  CHECK(napi_create_array_with_length(env, count, &out));
  for (uint32_t i = 0; i < count; i++) {
    const char *text = name_of(language, i);
    napi_value name;
    CHECK(napi_create_string_utf8(env, text != NULL ? text : "", NAPI_AUTO_LENGTH, &name));
    CHECK(napi_set_element(env, out, i, name));
  }
  return out;
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
