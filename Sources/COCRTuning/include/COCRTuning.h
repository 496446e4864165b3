#ifndef RECEIPTS_COCRTUNING_H
#define RECEIPTS_COCRTUNING_H

/// 1 when this process's calls to Leptonica's pixWriteMem go through the override in
/// line_images.c (PNG written without zlib compression), 0 when Leptonica's own is used.
int receipts_line_images_uncompressed(void);

/// Gives the memory malloc holds free back to the system (glibc malloc_trim); a no-op elsewhere.
void receipts_release_free_memory(void);

#endif
