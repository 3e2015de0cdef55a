/* The lexer pass (layout.c): its functions for the module's exports. */
#ifndef ERROR_CATALOG_LAYOUT_H
#define ERROR_CATALOG_LAYOUT_H
#include <node_api.h>

napi_value layout(napi_env env, napi_callback_info info);
napi_value ident_classes(napi_env env, napi_callback_info info);

#endif
