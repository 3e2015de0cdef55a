/*
 * The lexer pass behind `layoutOf` (pipeline/layout.ts, which builds its objects from the flat
 * answer): one pass over a file's UTF-16 text that lays out its items (at the top level and in
 * `impl`, `trait` and `mod` bodies) and says, for each candidate, whether it is code and what
 * encloses it (an attribute, a `macro_rules!` matcher or body, a macro's token tree, functions).
 * Offsets are UTF-16 units, as in JavaScript; char literals and strings are read as tokens.ts
 * reads them (`charEnd`, `lexString`), identifiers by JavaScript's Unicode classes (`identClasses`).
 *
 * layout(text, hits): hits is an Int32Array of [offset, name length] pairs, sorted by offset.
 * Answers null when the text has a character past ASCII where the lexer must classify it and the
 * classes are not known yet (`identClasses` sets them), else { items, spots, names, attributes }:
 * - items, 7 per item in the order they start: start, end, parent (-1 at the top level), the
 *   keyword's start and end (-1, -1 until known), the body's prelude end and closing brace
 *   (-1, -1 without a body);
 * - spots, 7 per hit: item (-1 for none), code, excluded, inTokenTree, before, and the first and
 *   count of its functions in names;
 * - names, 2 per function name: start, end;
 * - attributes, 4 per attribute whose test-ness decides an item's or the file's (`isTest` in
 *   layout.ts): start, end, inner, item (-1: the file, for an inner attribute at the top level).
 *
 * Note: pipeline/layout-plain.ts is the same pass in TypeScript, for where the addon does not load;
 * a rule changed here is changed there (test/layout.test.ts compares their columns).
 */
#include <node_api.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#ifdef _WIN32
#include <windows.h>
#define yield_thread() SwitchToThread()
#else
#include <sched.h>
#define yield_thread() sched_yield()
#endif

/*
 * Which UTF-16 code units past ASCII start an identifier (\p{L}) and go on with one (\p{L}\p{N}).
 * Note: written once per process, by the first thread that claims them (`classes` goes from
 * UNKNOWN to WRITING); it publishes them with a release store of KNOWN, and a thread reads the
 * bits only after an acquire load of KNOWN. No thread writes them after that, so no read races
 * a write.
 */
static uint8_t ident_start[65536 / 8];
static uint8_t ident_word[65536 / 8];
enum { UNKNOWN, WRITING, KNOWN };
static atomic_int classes = UNKNOWN;

typedef struct {
  int32_t *v;
  size_t n, cap;
} Ints;

static int push(Ints *a, int32_t x) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 256;
    int32_t *v = realloc(a->v, cap * sizeof(int32_t));
    if (v == NULL) return 0;
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return 1;
}

enum { PLAIN, TOKEN_TREE, ATTRIBUTE, MATCHER, DEFINITION };
enum { PREV_NONE, PREV_IDENT, PREV_PUNCT, PREV_OTHER };
enum { NONE, AFTER_BANG, AFTER_NAME };

typedef struct {
  int owner; /* item, -1 for the top level */
  int boundary;
  int last; /* last item of the list, -1 */
} List;

typedef struct {
  int kind;
  int list; /* -1: not a list */
  int close;
  int32_t from;
  int inner;
  int32_t fn_start, fn_end;           /* -1: none */
  int32_t pending_start, pending_end; /* -1: none */
  int fn_next;
} Frame;

typedef struct {
  const uint16_t *t;
  int32_t n;
  int unknown; /* a character past ASCII met without the classes */
} Text;

static inline int code_at(const Text *x, int32_t i) {
  return i >= 0 && i < x->n ? x->t[i] : -1;
}

static inline int is_space(int c) {
  if (c <= 32) return c == 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return 0;
  return c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

static int bit(Text *x, const uint8_t *set, int c) {
  if (atomic_load_explicit(&classes, memory_order_acquire) != KNOWN) {
    x->unknown = 1;
    return 0;
  }
  return (set[c >> 3] >> (c & 7)) & 1;
}

/* layout.ts's isIdentStart(text, c, i), with c the unit at i; out of the text it is true, as there. */
static inline int ident_start_at(Text *x, int32_t i) {
  if (i < 0 || i >= x->n) return 1;
  int c = x->t[i];
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c == 95;
  return bit(x, ident_start, c);
}

static inline int is_word_at(Text *x, int32_t i) {
  int c = x->t[i];
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 95;
  return bit(x, ident_word, c);
}

static int is_hex(int c) {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/* One code point at i (a surrogate pair is one): its length in units. */
static int32_t code_point(const Text *x, int32_t i) {
  int c = x->t[i];
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < x->n && x->t[i + 1] >= 0xdc00 && x->t[i + 1] <= 0xdfff) return 2;
  return 1;
}

/* tokens.ts's charEnd: the end of the char literal at i (`'…'`), or -1. */
static int32_t char_end(const Text *x, int32_t i) {
  if (code_at(x, i) != 39) return -1;
  int32_t j = i + 1;
  if (j >= x->n) return -1;
  if (x->t[j] == 92) {
    j++;
    if (j >= x->n) return -1;
    if (x->t[j] == 117 && code_at(x, j + 1) == 123) {
      int32_t m = j + 2, digits = 0;
      while (digits < 8 && m < x->n && (is_hex(x->t[m]) || x->t[m] == 95)) m++, digits++;
      if (digits >= 1 && code_at(x, m) == 125 && code_at(x, m + 1) == 39) return m + 2;
      /* Otherwise `u` is the one character after the backslash. */
    }
    if (x->t[j] == 120 && j + 2 < x->n && is_hex(x->t[j + 1]) && is_hex(x->t[j + 2]) && code_at(x, j + 3) == 39) return j + 4;
    j += code_point(x, j);
  } else {
    int c = x->t[j];
    if (c == 39 || c == 10) return -1;
    j += code_point(x, j);
  }
  return code_at(x, j) == 39 ? j + 1 : -1;
}

/* tokens.ts's lexString: the end of the string literal at i (any prefix), or -1. */
static int32_t lex_string(const Text *x, int32_t i) {
  int32_t j = i;
  int c = x->t[j];
  if (c == 98 || c == 99) c = code_at(x, ++j);
  int raw = c == 114;
  if (raw) c = code_at(x, ++j);
  int32_t hash_start = j;
  while (c == 35) c = code_at(x, ++j);
  int32_t hashes = j - hash_start;
  if (c != 34 || (hashes > 0 && !raw) || j + 1 - i > 300) return -1;
  j++;
  if (raw) {
    for (int32_t k = j; k + hashes < x->n; k++) {
      if (x->t[k] != 34) continue;
      int32_t h = 0;
      while (h < hashes && x->t[k + 1 + h] == 35) h++;
      if (h == hashes) return k + 1 + hashes;
    }
    return -1;
  }
  while (j < x->n) {
    int ch = x->t[j];
    if (ch == 92) j += 2;
    else if (ch == 34) return j + 1;
    else j++;
  }
  return -1;
}

static inline int equals(const Text *x, int32_t start, int32_t end, const char *word) {
  size_t length = strlen(word);
  if ((size_t)(end - start) != length) return 0;
  for (size_t k = 0; k < length; k++)
    if (x->t[start + k] != (uint16_t)word[k]) return 0;
  return 1;
}

static int one_of(const Text *x, int32_t start, int32_t end, const char *const *words) {
  for (; *words != NULL; words++)
    if (equals(x, start, end, *words)) return 1;
  return 0;
}

/* Words that may stand before `!` as an operator, never as a macro's name. */
static const char *const KEYWORDS[] = {"as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "yield", "box", NULL};
/* Words that may stand before an item's keyword. */
static const char *const MODIFIERS[] = {"pub", "const", "unsafe", "async", "extern", "default", "safe", NULL};
/* Items whose body is a list of items. */
static const char *const CONTAINERS[] = {"impl", "trait", "mod", NULL};

static int32_t skip_space(const Text *x, int32_t i) {
  while (is_space(code_at(x, i))) i++;
  return i;
}

static int32_t hash_bang(const Text *x, int32_t bang) {
  int32_t j = bang - 1;
  while (j >= 0 && is_space(x->t[j])) j--;
  return j >= 0 && x->t[j] == 35 ? j + 1 : 0;
}

/* Item columns. */
enum { I_START, I_END, I_PARENT, I_KW_START, I_KW_END, I_PRELUDE, I_CLOSE, I_COLUMNS };

typedef struct {
  Ints items, spots, names, attributes;
  List *lists;
  int nlists, cap_lists;
  Frame *stack;
  int depth, cap_stack;
  int failed;
} Out;

static int new_list(Out *o, int owner) {
  if (o->nlists == o->cap_lists) {
    int cap = o->cap_lists ? o->cap_lists * 2 : 64;
    List *l = realloc(o->lists, cap * sizeof(List));
    if (l == NULL) return -1;
    o->lists = l;
    o->cap_lists = cap;
  }
  o->lists[o->nlists] = (List){owner, 1, -1};
  return o->nlists++;
}

#define ITEM(k, column) (o->items.v[(size_t)(k) * I_COLUMNS + (column)])

static int start_item(Out *o, int list, int32_t at, int32_t n) {
  List *l = &o->lists[list];
  if (l->last >= 0) ITEM(l->last, I_END) = at;
  else if (l->owner >= 0 && ITEM(l->owner, I_PRELUDE) >= 0) ITEM(l->owner, I_PRELUDE) = at;
  int item = (int)(o->items.n / I_COLUMNS);
  int32_t row[I_COLUMNS] = {at, n, l->owner, -1, -1, -1, -1};
  for (int c = 0; c < I_COLUMNS; c++)
    if (!push(&o->items, row[c])) return -1;
  o->lists[list].last = item;
  return item;
}

static int push_frame(Out *o, Frame f) {
  if (o->depth == o->cap_stack) {
    int cap = o->cap_stack ? o->cap_stack * 2 : 64;
    Frame *s = realloc(o->stack, cap * sizeof(Frame));
    if (s == NULL) return 0;
    o->stack = s;
    o->cap_stack = cap;
  }
  o->stack[o->depth++] = f;
  return 1;
}

/* The pass itself; 0 when out of memory. */
static int lay_out(Text *x, const int32_t *hits, size_t nhits, Out *o) {
  const int32_t n = x->n;
  const uint16_t *t = x->t;
  int top_list = new_list(o, -1);
  if (top_list < 0) return 0;
  Frame top = {PLAIN, top_list, 0, 0, 0, -1, -1, -1, -1, 0};
  Frame *frame = &top;
  int prev = PREV_NONE;
  int32_t prev_start = 0, prev_end = 0;
  int prev_char = 0;
  int bang_name = 0;
  int definition = NONE;
  size_t h = 0;
  int current = -1;

  int32_t i = 0;
  while (i < n) {
    int c = t[i];
    if (c <= 32 || (c >= 0x80 && is_space(c))) {
      // White space runs: read through without the loop's other checks.
      do i++;
      while (i < n && t[i] <= 32);
      continue;
    }
    if (c == 47) {
      int next = code_at(x, i + 1);
      if (next == 47) {
        int32_t j = i;
        while (j < n && t[j] != 10) j++;
        i = j;
        continue;
      }
      if (next == 42) {
        int depth = 1;
        int32_t j = i + 2;
        while (j < n && depth > 0) {
          int d = t[j];
          if (d == 47 && code_at(x, j + 1) == 42) depth++, j += 2;
          else if (d == 42 && code_at(x, j + 1) == 47) depth--, j += 2;
          else j++;
        }
        i = j;
        continue;
      }
    }
    int32_t start = i;
    int kind = PREV_OTHER;
    if (c == 34) {
      int32_t end = lex_string(x, i);
      i = end < 0 ? n : end;
    } else if (c == 39) {
      int32_t end = char_end(x, i);
      if (end >= 0) i = end;
      else {
        i++;
        while (i < n && is_word_at(x, i)) i++;
      }
    } else if (ident_start_at(x, i)) {
      int32_t str = c == 98 || c == 99 || c == 114 ? lex_string(x, i) : -1;
      if (str >= 0) i = str;
      else if (c == 98 && code_at(x, i + 1) == 39) {
        int32_t end = char_end(x, i + 1);
        i = end < 0 ? i + 2 : end;
      } else {
        int32_t j = i + 1;
        if (c == 114 && code_at(x, j) == 35 && ident_start_at(x, j + 1)) j += 2;
        for (;;) {
          int d = code_at(x, j);
          if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d == 95 || (d >= 128 && is_word_at(x, j))) j++;
          else break;
        }
        i = j;
        kind = PREV_IDENT;
      }
    } else if (c >= 48 && c <= 57) {
      int32_t j = i + 1;
      for (;;) {
        while (j < n && is_word_at(x, j)) j++;
        int d = code_at(x, j + 1);
        if (code_at(x, j) == 46 && d >= 48 && d <= 57) j++;
        else break;
      }
      i = j;
    } else {
      kind = PREV_PUNCT;
      i++;
    }

    int list = frame->list;
    if (list >= 0 && o->lists[list].boundary &&
        ((kind == PREV_IDENT && !equals(x, start, i, "else") && !equals(x, start, i, "as")) || (c == 35 && kind == PREV_PUNCT && code_at(x, skip_space(x, i)) != 33))) {
      current = start_item(o, list, start, n);
      if (current < 0) return 0;
    }

    while (h < nhits && hits[2 * h] < i) {
      int32_t at = hits[2 * h], length = hits[2 * h + 1];
      h++;
      int code = kind == PREV_IDENT && at == start && i - start == length;
      int excluded = 0, in_token_tree = 0;
      int32_t first = (int32_t)(o->names.n / 2), count = 0;
      if (code) {
        for (int k = 0; k < o->depth; k++) {
          const Frame *f = &o->stack[k];
          if (f->kind == ATTRIBUTE || f->kind == MATCHER) excluded = 1;
          else if (f->kind == TOKEN_TREE || f->kind == DEFINITION) in_token_tree = 1;
          if (f->fn_start >= 0 && f->kind == PLAIN) {
            if (!push(&o->names, f->fn_start) || !push(&o->names, f->fn_end)) return 0;
            count++;
          }
        }
      }
      int32_t row[7] = {current, code, excluded, in_token_tree, code ? prev_end - 1 : -1, first, count};
      for (int k = 0; k < 7; k++)
        if (!push(&o->spots, row[k])) return 0;
    }

    if (kind == PREV_IDENT) {
      if (list >= 0 && current >= 0 && ITEM(current, I_KW_START) < 0 && !one_of(x, start, i, MODIFIERS)) {
        ITEM(current, I_KW_START) = start;
        ITEM(current, I_KW_END) = i;
      }
      if (frame->fn_next) frame->pending_start = start, frame->pending_end = i;
      frame->fn_next = i - start == 2 && c == 102 && t[start + 1] == 110;
      definition = definition == AFTER_BANG ? AFTER_NAME : NONE;
    } else if (kind == PREV_PUNCT && (c == 40 || c == 91 || c == 123)) {
      int parent = frame->kind;
      int group = PLAIN;
      int32_t from = 0;
      int inner = 0;
      if (parent == TOKEN_TREE || parent == MATCHER || parent == ATTRIBUTE) group = parent;
      else if (parent == DEFINITION) group = prev_char == 62 && code_at(x, prev_end - 2) == 61 ? TOKEN_TREE : MATCHER;
      else if (definition == AFTER_NAME) group = DEFINITION;
      else if (prev_char == 33 && bang_name) group = TOKEN_TREE;
      else if (c == 91 && prev_char == 35) {
        group = ATTRIBUTE;
        from = prev_end - 1;
      } else if (c == 91 && prev_char == 33 && hash_bang(x, prev_end - 1) > 0) {
        group = ATTRIBUTE;
        inner = 1;
        from = hash_bang(x, prev_end - 1) - 1;
      }
      int body = -1;
      if (c == 123 && group == PLAIN && list >= 0 && current >= 0 && ITEM(current, I_PRELUDE) < 0 && ITEM(current, I_PARENT) == o->lists[list].owner && ITEM(current, I_KW_START) >= 0 &&
          one_of(x, ITEM(current, I_KW_START), ITEM(current, I_KW_END), CONTAINERS)) {
        ITEM(current, I_PRELUDE) = n;
        ITEM(current, I_CLOSE) = n;
        body = new_list(o, current);
        if (body < 0) return 0;
      }
      int32_t fn_start = -1, fn_end = -1;
      if (c == 123) {
        fn_start = frame->pending_start, fn_end = frame->pending_end;
        frame->pending_start = frame->pending_end = -1;
      }
      frame->fn_next = 0;
      Frame f = {group, body, c == 40 ? 41 : c + 2, from, inner, fn_start, fn_end, -1, -1, 0};
      if (!push_frame(o, f)) return 0;
      frame = &o->stack[o->depth - 1];
      definition = NONE;
    } else if (kind == PREV_PUNCT && (c == 41 || c == 93 || c == 125)) {
      int k = o->depth - 1;
      while (k >= 0 && o->stack[k].close != c) k--;
      if (k >= 0) {
        Frame closed = o->stack[k];
        o->depth = k;
        frame = o->depth > 0 ? &o->stack[o->depth - 1] : &top;
        if (closed.list >= 0) {
          int owner = o->lists[closed.list].owner;
          ITEM(owner, I_CLOSE) = start;
          if (o->lists[closed.list].last < 0) ITEM(owner, I_PRELUDE) = start;
          else ITEM(o->lists[closed.list].last, I_END) = start;
          current = owner;
        }
        int outer = frame->list;
        if (outer >= 0) {
          if (closed.kind == ATTRIBUTE && (!closed.inner || outer == top_list)) {
            int32_t row[4] = {closed.from, i, closed.inner, closed.inner ? -1 : current};
            for (int r = 0; r < 4; r++)
              if (!push(&o->attributes, row[r])) return 0;
          }
          o->lists[outer].boundary = c == 125 || (closed.kind == ATTRIBUTE && closed.inner);
        }
      }
      definition = NONE;
    } else {
      if (kind == PREV_PUNCT && c == 59) frame->pending_start = frame->pending_end = -1;
      if (kind == PREV_PUNCT && c == 33) {
        int named = prev == PREV_IDENT;
        bang_name = named && !one_of(x, prev_start, prev_end, KEYWORDS);
        definition = named && equals(x, prev_start, prev_end, "macro_rules") ? AFTER_BANG : NONE;
      } else definition = NONE;
      frame->fn_next = 0;
    }
    if (list >= 0 && !(kind == PREV_PUNCT && (c == 41 || c == 93 || c == 125))) o->lists[list].boundary = kind == PREV_PUNCT && c == 59;
    prev = kind;
    prev_start = start;
    prev_char = kind == PREV_PUNCT ? c : 0;
    prev_end = i;
    if (x->unknown) return 1;
  }
  for (; h < nhits; h++) {
    int32_t row[7] = {current, 0, 0, 0, -1, (int32_t)(o->names.n / 2), 0};
    for (int k = 0; k < 7; k++)
      if (!push(&o->spots, row[k])) return 0;
  }
  return 1;
}

/* The Int32Array of `a`'s values, or NULL (a JavaScript error pending). */
static napi_value int32_array(napi_env env, const Ints *a) {
  napi_value buffer, array;
  void *data = NULL;
  size_t bytes = a->n * sizeof(int32_t);
  if (napi_create_arraybuffer(env, bytes, &data, &buffer) != napi_ok || (data == NULL && bytes > 0)) return NULL;
  if (bytes > 0) memcpy(data, a->v, bytes);
  if (napi_create_typedarray(env, napi_int32_array, a->n, buffer, 0, &array) != napi_ok) return NULL;
  return array;
}

/* { items, spots, names, attributes } of the pass's output, or NULL. */
static napi_value layout_object(napi_env env, const Out *o) {
  const char *names[] = {"items", "spots", "names", "attributes"};
  const Ints *columns[] = {&o->items, &o->spots, &o->names, &o->attributes};
  napi_value result;
  if (napi_create_object(env, &result) != napi_ok) return NULL;
  for (int k = 0; k < 4; k++) {
    napi_value array = int32_array(env, columns[k]);
    if (array == NULL || napi_set_named_property(env, result, names[k], array) != napi_ok) return NULL;
  }
  return result;
}

napi_value layout(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  napi_valuetype type;
  bool typed = false;
  if (argc < 2 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_string || napi_is_typedarray(env, argv[1], &typed) != napi_ok || !typed) {
    napi_throw_type_error(env, NULL, "layout: the arguments must be a text and an Int32Array of hits");
    return NULL;
  }
  napi_typedarray_type kind;
  size_t nvalues;
  void *values = NULL;
  if (napi_get_typedarray_info(env, argv[1], &kind, &nvalues, &values, NULL, NULL) != napi_ok || kind != napi_int32_array || nvalues % 2 != 0 || (values == NULL && nvalues > 0)) {
    napi_throw_type_error(env, NULL, "layout: the hits must be an Int32Array of [offset, length] pairs");
    return NULL;
  }
  size_t length;
  if (napi_get_value_string_utf16(env, argv[0], NULL, 0, &length) != napi_ok) {
    napi_throw_error(env, NULL, "layout: the text could not be read");
    return NULL;
  }
  uint16_t *units = malloc((length + 1) * sizeof(uint16_t));
  if (units == NULL) {
    napi_throw_error(env, NULL, "layout: out of memory");
    return NULL;
  }
  napi_value result = NULL;
  Out o;
  memset(&o, 0, sizeof o);
  if (napi_get_value_string_utf16(env, argv[0], (char16_t *)units, length + 1, &length) != napi_ok) {
    napi_throw_error(env, NULL, "layout: the text could not be read");
  } else {
    Text x = {units, (int32_t)length, 0};
    if (!lay_out(&x, values, nvalues / 2, &o)) napi_throw_error(env, NULL, "layout: out of memory");
    else if (x.unknown) napi_get_null(env, &result);
    else if ((result = layout_object(env, &o)) == NULL) {
      bool pending = false;
      if (napi_is_exception_pending(env, &pending) != napi_ok || !pending) napi_throw_error(env, NULL, "layout: out of memory for the answer");
    }
  }
  free(units);
  free(o.items.v);
  free(o.spots.v);
  free(o.names.v);
  free(o.attributes.v);
  free(o.lists);
  free(o.stack);
  return result;
}

/*
 * identClasses(start, word): two bit sets of 8192 bytes over the UTF-16 code units. The first call
 * of the process sets them; a call that comes while they are being set returns once they are.
 */
napi_value ident_classes(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  const uint8_t *sets[2];
  for (int k = 0; k < 2; k++) {
    napi_typedarray_type kind;
    size_t count;
    void *data = NULL;
    bool typed = false;
    if (argc < 2 || napi_is_typedarray(env, argv[k], &typed) != napi_ok || !typed || napi_get_typedarray_info(env, argv[k], &kind, &count, &data, NULL, NULL) != napi_ok || kind != napi_uint8_array ||
        count != sizeof ident_start || data == NULL) {
      napi_throw_type_error(env, NULL, "identClasses: the arguments must be two Uint8Arrays of 8192 bytes");
      return NULL;
    }
    sets[k] = data;
  }
  int expected = UNKNOWN;
  if (atomic_compare_exchange_strong_explicit(&classes, &expected, WRITING, memory_order_acquire, memory_order_acquire)) {
    memcpy(ident_start, sets[0], sizeof ident_start);
    memcpy(ident_word, sets[1], sizeof ident_word);
    atomic_store_explicit(&classes, KNOWN, memory_order_release);
  } else {
    /* Another thread writes them: a copy of 16 KiB, so a short wait. */
    while (atomic_load_explicit(&classes, memory_order_acquire) != KNOWN) yield_thread();
  }
  return NULL;
}
