// Types of coreos-installer.mjs for the TypeScript tests.

export declare const COREOS_INSTALLER_VERSION: string;
/** Where cargo installs it: `<cache>/coreos-installer` (its binary in `bin/`). */
export declare const coreosInstallerRoot: string;
/** The path of coreos-installer, built with cargo first when missing (and xorriso installed). */
export declare function ensureCoreosInstaller(): Promise<string>;
/** The path of xorriso, installed with apt-get when missing. */
export declare function ensureXorriso(): Promise<string>;
/** apt-get install (as root, else sudo -n), with `apt-get update` first when that fails. */
export declare function ensureDebianPackages(packages: readonly string[]): Promise<void>;
