// Types of chromium.mjs for the TypeScript tests.

/** Where Debian installs chromium. */
export declare const CHROMIUM_PATH: string;
/** The flags every test browser starts with (headless, no sandbox, no network of its own). */
export declare const CHROMIUM_ARGS: readonly string[];
/** The path of Debian's chromium, installed with apt-get when missing. */
export declare function ensureChromium(): Promise<string>;
