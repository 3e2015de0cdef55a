/**
 * Methods of the standard library's common types and traits (`Option`, `Result`, `Vec`, slices,
 * `str`, `String`, iterators, maps, `Clone`, conversions, formatting): a method call by one of
 * these names is most often the standard library's, so the symbol index does not link it to a
 * workspace method by its name alone (symbols/index.ts).
 */
export const STD_METHODS: ReadonlySet<string> = new Set(
  (
    "unwrap expect unwrap_or unwrap_or_else unwrap_or_default map map_err and_then or_else ok err ok_or ok_or_else is_some is_none is_ok is_err " +
    "as_ref as_mut as_deref take replace get get_mut insert remove contains contains_key push pop len is_empty clear extend append truncate " +
    "iter iter_mut into_iter collect filter filter_map flat_map fold for_each zip enumerate rev skip step_by chain any all find position count sum product max min " +
    "max_by min_by sort sort_by sort_by_key sort_unstable dedup retain drain split splitn split_at split_off join concat first last windows chunks " +
    "to_string to_owned to_vec clone cloned copied into from try_into try_from as_str as_slice as_bytes as_ptr trim starts_with ends_with " +
    "parse format write write_str write_fmt fmt eq ne cmp partial_cmp hash borrow borrow_mut deref deref_mut lock read send recv try_recv " +
    "entry or_insert or_insert_with or_default keys values values_mut next peek last_mut chars bytes lines resize reserve with_capacity capacity swap"
  ).split(" "),
);

/** Macros of the standard library: an invocation of one links to no `macro_rules!` of the workspace that has another name. */
export const STD_MACROS: ReadonlySet<string> = new Set(
  "assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne panic unreachable todo unimplemented vec format format_args write writeln print println eprint eprintln matches dbg concat stringify include include_str include_bytes env option_env cfg line file column module_path compile_error".split(" "),
);

/**
 * Methods of std's that give the value they are called on again, borrowed, copied or as a view of
 * the same elements (`tensors.as_slice()`, `shape.clone()`): an argument written so hands the
 * value on as it is, for what a check reads of it.
 */
export const SAME_VALUE_METHODS: ReadonlySet<string> = new Set("clone as_ref as_mut as_slice as_mut_slice as_str borrow borrow_mut to_vec to_owned".split(" "));
