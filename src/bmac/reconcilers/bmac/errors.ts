/** Errors of the BMAC: the runtime logs their message and retries the host with backoff. */
import { SiteForgeError } from '../../../shared/errors.js';

/** A BMAC step could not finish; `code` says which. */
export class BmacError extends SiteForgeError {}
