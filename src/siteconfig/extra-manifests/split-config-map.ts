/**
 * Splitting extra-manifest ConfigMap data across several ConfigMaps. The API server refuses a
 * ConfigMap whose data (keys plus values, in bytes) exceeds 1 MiB; siteconfig-generator
 * emitted it anyway and the apply failed on the hub. AgentClusterInstall can reference several
 * ConfigMaps (`manifestsConfigMapRefs`), so large data is spread over chunks instead.
 */

/**
 * Default chunk size in bytes: under the 1 MiB (1,048,576 bytes) data cap with room for the
 * object's metadata.
 */
export const CONFIGMAP_DATA_LIMIT = 900_000;

/** The size the API server counts for one data entry: UTF-8 bytes of key and value. */
export function configMapEntryBytes(key: string, value: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
}

/**
 * Splits ConfigMap data into chunks whose size stays under `limitBytes`. Keys are taken in
 * sorted order and a chunk is closed when the next entry would not fit, so a change to one
 * manifest only moves the chunk boundaries after it. One chunk (possibly empty) when it all
 * fits; an entry larger than the limit is returned alone in its chunk, for the caller to
 * report.
 */
export function splitConfigMapData(
  data: Readonly<Record<string, string>>,
  limitBytes: number = CONFIGMAP_DATA_LIMIT,
): Readonly<Record<string, string>>[] {
  const chunks: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  let size = 0;
  let count = 0;
  for (const key of Object.keys(data).sort()) {
    const value = data[key]!;
    const bytes = configMapEntryBytes(key, value);
    if (count > 0 && size + bytes > limitBytes) {
      chunks.push(current);
      current = {};
      size = 0;
      count = 0;
    }
    current[key] = value;
    size += bytes;
    count++;
  }
  if (count > 0 || chunks.length === 0) chunks.push(current);
  return chunks;
}
