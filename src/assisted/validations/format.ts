/**
 * Number, size and time formatting exactly as assisted-service's Go prints them, so messages
 * match upstream byte for byte (`pkg/conversions`, `internal/hardware/validator.go`, Go's
 * `fmt` and `time.Time.String`).
 */

const KIB = 1024;
const MIB = KIB * 1024;
const GIB = MIB * 1024;
const TIB = GIB * 1024;
const PIB = TIB * 1024;

/** Bytes in a MiB. */
export const BYTES_PER_MIB = MIB;
/** Bytes in a (decimal) GB, the unit of `disk_size_gb`. */
export const BYTES_PER_GB = 1_000_000_000;

/**
 * Go's `%.<digits>f`: round half to even on the exact binary value (JavaScript's `toFixed`
 * rounds exact ties away from zero).
 */
export function goFixed(value: number, digits: number): string {
  const scale = 10 ** digits;
  const scaled = value * scale;
  const floor = Math.floor(scaled);
  if (scaled - floor === 0.5 && Number.isSafeInteger(floor)) {
    const even = floor % 2 === 0 ? floor : floor + 1;
    return (even / scale).toFixed(digits);
  }
  return value.toFixed(digits);
}

/** `conversions.BytesToString`: `16.00 GiB`, `512 MiB`, `3 KiB`, `12 bytes`. */
export function bytesToString(bytes: number): string {
  if (bytes >= PIB) return `${goFixed(bytes / PIB, 2)} PiB`;
  if (bytes >= TIB) return `${goFixed(bytes / TIB, 2)} TiB`;
  if (bytes >= GIB) return `${goFixed(bytes / GIB, 2)} GiB`;
  if (bytes >= MIB) return `${String(Math.trunc(bytes / MIB))} MiB`;
  if (bytes >= KIB) return `${String(Math.trunc(bytes / KIB))} KiB`;
  return `${String(bytes)} bytes`;
}

function roundedUp(value: number, unit: string): string {
  const rounded = Math.ceil(value * 1000) / 1000;
  if (Number.isInteger(rounded)) return `${String(rounded)} ${unit}`;
  const text = rounded.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
  return `${text} ${unit}`;
}

/**
 * The disk eligibility size format (`preciseHumanizeBytes`): SI units, rounded up to the
 * thousandth so a disk is never shown larger than it is: `100 GB`, `99.999 GB`, `512 B`.
 */
export function preciseHumanizeBytes(bytes: number): string {
  const KB = 1000;
  const MB = KB * 1000;
  const GB = MB * 1000;
  const TB = GB * 1000;
  if (bytes >= TB) return roundedUp(bytes / TB, 'TB');
  if (bytes >= GB) return roundedUp(bytes / GB, 'GB');
  if (bytes >= MB) return roundedUp(bytes / MB, 'MB');
  if (bytes >= KB) return roundedUp(bytes / KB, 'KB');
  return `${String(bytes)} B`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Go's `time.Time.String()` of a UTC time: `2026-11-25 12:25:00.123 +0000 UTC`. */
export function goUtcTimeString(time: Date): string {
  const date = `${String(time.getUTCFullYear())}-${pad(time.getUTCMonth() + 1)}-${pad(time.getUTCDate())}`;
  const clock = `${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())}:${pad(time.getUTCSeconds())}`;
  const ms = time.getUTCMilliseconds();
  const fraction = ms === 0 ? '' : `.${pad(ms, 3).replace(/0+$/, '')}`;
  return `${date} ${clock}${fraction} +0000 UTC`;
}
