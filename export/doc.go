// Package export writes a solver result for its consumers: the Binding and
// Eviction objects a binder POSTs, in commit order (a JSON v1 List, or JSON
// lines), and the JSON report with counts, timings and the reason for every
// pod left pending. Files are written to a temporary name in the target
// directory and renamed into place, so a failed run leaves no partial file.
package export
