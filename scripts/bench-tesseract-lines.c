/* Issue 40, idea B: Tesseract whole-page PSM 6 vs PSM 7 on the neural reader's line boxes
 * (docs/benchmarks.md, "Tesseract reading the detector's lines"). A measurement, not part of the build:
 *
 *   gcc -O2 -Wall -o /tmp/linebench scripts/bench-tesseract-lines.c \
 *       $(pkg-config --cflags --libs tesseract lept) -lm
 *   receipts ocr --reader neural --tsv IMAGE > IMAGE.tsv      # for each image
 *   OMP_THREAD_LIMIT=1 /tmp/linebench 3 IMAGE1 IMAGE1.tsv IMAGE2 IMAGE2.tsv ...
 *
 * Usage: linebench REPS IMAGE TSV [IMAGE TSV ...]
 *   TSV is `receipts ocr --reader neural --tsv IMAGE` (rows of level 1 = page size of the
 *   prepared image, level 4 = a row of words, level 5 = a word; boxes in the prepared image's pixels).
 *
 * The image is prepared as ImageLoader does for the first pass (colour map removed, RGB -> luminance
 * above 4 MP, scaled up to 1000 px wide (x3.5 at most) / down to 4 MP, RGB -> luminance when the
 * scaled picture is above 2 MP); its size must equal the TSV's page size (checked).
 *
 * Modes, each timed with clock_gettime(CLOCK_MONOTONIC) (ms) and CLOCK_PROCESS_CPUTIME_ID (cpu_ms)
 * around the Tesseract calls only:
 *   page   PSM 6: SetImage2 + Recognize + GetUTF8Text (what TesseractHandle.recognize does)
 *   layout PSM 6: SetImage2 + AnalyseLayout (page layout analysis alone)
 *   rows   PSM 7: SetImage2 once, then per level-4 row box: SetRectangle + Recognize + GetUTF8Text
 *   segs   PSM 7: same, per "segment" = words of a row merged while the gap between them is
 *          below GAP x the row's height (approximates the detector's boxes; count printed beside
 *          the detector's box count from --timing)
 * Each rep runs the four modes per image in an order that rotates with the rep.
 * Output: one TSV line per (image, rep, mode): ms, boxes, non-space chars, mean confidence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

#define MAXB 4096
typedef struct { int x, y, w, h; } Box4;
static const double GAP = 1.0;     /* segs: merge words whose gap < GAP * row height */
static const double PAD = 0.15;    /* boxes padded by PAD * height on every side */

static double now_ms(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double cpu_ms(void) {
    struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int nonspace_chars(const char *s) {
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80 && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') n++;
    return n;
}

static Box4 pad(Box4 b, int W, int H) {
    int p = (int)(b.h * PAD + 0.5); if (p < 2) p = 2;
    int x0 = b.x - p, y0 = b.y - p, x1 = b.x + b.w + p, y1 = b.y + b.h + p;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > W) x1 = W;
    if (y1 > H) y1 = H;
    Box4 r = { x0, y0, x1 - x0, y1 - y0 }; return r;
}

/* Reads the TSV: page size, row boxes (level 4), segment boxes (level-5 words merged). */
static int read_tsv(const char *path, int *pw, int *ph, Box4 *rows, int *nrows, Box4 *segs, int *nsegs) {
    FILE *f = fopen(path, "r"); if (!f) return -1;
    char line[8192]; *nrows = *nsegs = 0; *pw = *ph = 0;
    int cur_row_h = 0, have_seg = 0; Box4 seg = {0};
    while (fgets(line, sizeof line, f)) {
        int lv, pg, bl, pa, ln, wd, l, t, w, h;
        if (sscanf(line, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d", &lv, &pg, &bl, &pa, &ln, &wd, &l, &t, &w, &h) != 10) continue;
        if (lv == 1) { *pw = w; *ph = h; }
        else if (lv == 4) {
            if (have_seg && *nsegs < MAXB) segs[(*nsegs)++] = seg;
            have_seg = 0;
            if (*nrows < MAXB) { Box4 b = { l, t, w, h }; rows[(*nrows)++] = b; }
            cur_row_h = h;
        } else if (lv == 5) {
            if (have_seg && l - (seg.x + seg.w) < GAP * cur_row_h) {
                int x1 = seg.x + seg.w > l + w ? seg.x + seg.w : l + w;
                int y1 = seg.y + seg.h > t + h ? seg.y + seg.h : t + h;
                if (t < seg.y) seg.y = t;
                seg.w = x1 - seg.x; seg.h = y1 - seg.y;
            } else {
                if (have_seg && *nsegs < MAXB) segs[(*nsegs)++] = seg;
                Box4 b = { l, t, w, h }; seg = b; have_seg = 1;
            }
        }
    }
    if (have_seg && *nsegs < MAXB) segs[(*nsegs)++] = seg;
    fclose(f); return 0;
}

/* ImageLoader.decode + prepare for the first pass (no EXIF turn: none of the test images has one). */
static PIX *prepare(const char *path) {
    PIX *pix = pixRead(path), *t;
    if (!pix) return NULL;
    if (pixGetColormap(pix)) { t = pixRemoveColormap(pix, REMOVE_CMAP_BASED_ON_SRC); pixDestroy(&pix); pix = t; }
    long pixels = (long)pixGetWidth(pix) * pixGetHeight(pix);
    if (pixGetDepth(pix) == 32 && pixels > 4000000) { t = pixConvertRGBToLuminance(pix); pixDestroy(&pix); pix = t; }
    if (pixGetDepth(pix) != 8 && pixGetDepth(pix) != 32) { t = pixConvertTo8(pix, 0); pixDestroy(&pix); pix = t; }
    double scale = 1.0; int w = pixGetWidth(pix);
    if (w < 1000) { scale = 1000.0 / w; if (scale > 3.5) scale = 3.5; }
    if ((double)pixels * scale * scale > 4e6) scale = __builtin_sqrt(4e6 / pixels);
    if (pixGetDepth(pix) == 32 && (double)pixels * scale * scale > 2e6) { t = pixConvertRGBToLuminance(pix); pixDestroy(&pix); pix = t; }
    if (scale < 0.98 || scale > 1.02) { t = pixScale(pix, (float)scale, (float)scale); pixDestroy(&pix); pix = t; }
    return pix;
}

typedef struct { double ms, cpu; int boxes, chars; double conf; } Res;

static Res run_page(TessBaseAPI *api, PIX *pix) {
    Res r = {0};
    double t0 = now_ms(), c0 = cpu_ms();
    TessBaseAPISetPageSegMode(api, PSM_SINGLE_BLOCK);
    TessBaseAPISetImage2(api, pix);
    TessBaseAPIRecognize(api, NULL);
    char *text = TessBaseAPIGetUTF8Text(api);
    r.ms = now_ms() - t0; r.cpu = cpu_ms() - c0;
    r.boxes = 1; r.chars = text ? nonspace_chars(text) : 0; r.conf = TessBaseAPIMeanTextConf(api);
    TessDeleteText(text); TessBaseAPIClear(api);
    return r;
}

static Res run_layout(TessBaseAPI *api, PIX *pix) {
    Res r = {0};
    double t0 = now_ms(), c0 = cpu_ms();
    TessBaseAPISetPageSegMode(api, PSM_SINGLE_BLOCK);
    TessBaseAPISetImage2(api, pix);
    TessPageIterator *it = TessBaseAPIAnalyseLayout(api);
    r.ms = now_ms() - t0; r.cpu = cpu_ms() - c0;
    int n = 0;
    if (it) { do n++; while (TessPageIteratorNext(it, RIL_TEXTLINE)); TessPageIteratorDelete(it); }
    r.boxes = n; r.conf = -1;      /* boxes = text lines Tesseract's layout found */
    TessBaseAPIClear(api);
    return r;
}

static Res run_lines(TessBaseAPI *api, PIX *pix, const Box4 *b, int n) {
    Res r = {0}; double confsum = 0, timed = 0, cputimed = 0; int W = pixGetWidth(pix), H = pixGetHeight(pix);
    double t0 = now_ms(), c0 = cpu_ms();
    TessBaseAPISetPageSegMode(api, PSM_SINGLE_LINE);
    TessBaseAPISetImage2(api, pix);
    timed += now_ms() - t0; cputimed += cpu_ms() - c0;
    for (int i = 0; i < n; i++) {
        Box4 p = pad(b[i], W, H);
        double t1 = now_ms(), c1 = cpu_ms();
        TessBaseAPISetRectangle(api, p.x, p.y, p.w, p.h);
        TessBaseAPIRecognize(api, NULL);
        char *text = TessBaseAPIGetUTF8Text(api);
        timed += now_ms() - t1; cputimed += cpu_ms() - c1;
        int c = text ? nonspace_chars(text) : 0;
        r.chars += c; confsum += (double)c * TessBaseAPIMeanTextConf(api);
        TessDeleteText(text);
    }
    TessBaseAPIClear(api);
    r.ms = timed; r.cpu = cputimed; r.boxes = n; r.conf = r.chars ? confsum / r.chars : 0;
    return r;
}

int main(int argc, char **argv) {
    if (argc < 4 || (argc - 2) % 2) { fprintf(stderr, "usage: linebench REPS IMAGE TSV [IMAGE TSV ...]\n"); return 2; }
    int reps = atoi(argv[1]), nimg = (argc - 2) / 2;
    TessBaseAPI *api = TessBaseAPICreate();
    TessBaseAPISetVariable(api, "debug_file", "/dev/null");
    if (TessBaseAPIInit2(api, "/usr/share/tesseract-ocr/5/tessdata", "eng", OEM_DEFAULT) != 0) { fprintf(stderr, "init failed\n"); return 1; }
    TessBaseAPISetVariable(api, "debug_file", "/dev/null");
    PIX **pix = calloc(nimg, sizeof *pix);
    Box4 (*rows)[MAXB] = calloc(nimg, sizeof *rows), (*segs)[MAXB] = calloc(nimg, sizeof *segs);
    int *nrows = calloc(nimg, sizeof(int)), *nsegs = calloc(nimg, sizeof(int));
    for (int i = 0; i < nimg; i++) {
        const char *img = argv[2 + 2 * i], *tsv = argv[3 + 2 * i]; int pw, ph;
        pix[i] = prepare(img);
        if (!pix[i] || read_tsv(tsv, &pw, &ph, rows[i], &nrows[i], segs[i], &nsegs[i]) != 0) { fprintf(stderr, "cannot read %s / %s\n", img, tsv); return 1; }
        if (pw != pixGetWidth(pix[i]) || ph != pixGetHeight(pix[i]))
            fprintf(stderr, "SIZE MISMATCH %s: prepared %dx%d, tsv page %dx%d\n", img, pixGetWidth(pix[i]), pixGetHeight(pix[i]), pw, ph);
        if (getenv("LINEBENCH_DRAW")) {   /* prepared image with rows (red) and segs (blue) drawn */
            PIX *c = pixConvertTo32(pix[i]); char out[4096];
            for (int j = 0; j < nrows[i]; j++) { Box4 p = pad(rows[i][j], pw, ph); BOX *b = boxCreate(p.x, p.y, p.w, p.h); pixRenderBoxArb(c, b, 3, 255, 0, 0); boxDestroy(&b); }
            for (int j = 0; j < nsegs[i]; j++) { Box4 p = pad(segs[i][j], pw, ph); BOX *b = boxCreate(p.x, p.y, p.w, p.h); pixRenderBoxArb(c, b, 1, 0, 0, 255); boxDestroy(&b); }
            const char *base = strrchr(img, '/'); snprintf(out, sizeof out, "%s/%s.png", getenv("LINEBENCH_DRAW"), base ? base + 1 : img);
            pixWrite(out, c, IFF_PNG); pixDestroy(&c);
        }
        fprintf(stderr, "%s: %dx%dx%d, %d rows, %d segs\n", img, pixGetWidth(pix[i]), pixGetHeight(pix[i]), pixGetDepth(pix[i]), nrows[i], nsegs[i]);
    }
    /* warm-up: one page read, not reported */
    run_page(api, pix[0]);
    static const char *names[4] = { "page", "rows", "layout", "segs" };
    printf("rep\timage\tmode\tms\tcpu_ms\tboxes\tchars\tmeanconf\n");
    for (int rep = 0; rep < reps; rep++)
        for (int i = 0; i < nimg; i++)
            for (int k = 0; k < 4; k++) {
                int m = (k + rep + i) % 4;         /* rotate the order of modes */
                Res r;
                switch (m) {
                case 0: r = run_page(api, pix[i]); break;
                case 1: r = run_lines(api, pix[i], rows[i], nrows[i]); break;
                case 2: r = run_layout(api, pix[i]); break;
                default: r = run_lines(api, pix[i], segs[i], nsegs[i]); break;
                }
                const char *base = strrchr(argv[2 + 2 * i], '/');
                printf("%d\t%s\t%s\t%.1f\t%.1f\t%d\t%d\t%.1f\n", rep + 1, base ? base + 1 : argv[2 + 2 * i], names[m], r.ms, r.cpu, r.boxes, r.chars, r.conf);
                fflush(stdout);
            }
    for (int i = 0; i < nimg; i++) pixDestroy(&pix[i]);
    TessBaseAPIEnd(api); TessBaseAPIDelete(api);
    return 0;
}
