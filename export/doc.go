// Package export writes a solver result for its consumers: the Binding and
// Eviction objects a binder POSTs, in commit order (a JSON v1 List, or JSON
// lines), the placement table for analysis tools (one row per pod outcome,
// as an Arrow IPC file or Parquet, both zstd-compressed; see TableSchema),
// and the JSON report with counts, timings and the reason for every pod
// left pending. Files are written to a temporary name in the target
// directory and renamed into place, so a failed run leaves no partial file.
//
// The table is built and written in record batches of at most 64Ki rows,
// so its memory stays bounded whatever the number of pods; the same result
// always gives the same bytes.
package export
