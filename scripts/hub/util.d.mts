// Types of the parts of util.mjs that the TypeScript tests use.

/** Root of the binary cache: $SITEFORGE_CACHE_DIR or ${XDG_CACHE_HOME:-$HOME/.cache}/siteforge. */
export function cacheRoot(): string;
