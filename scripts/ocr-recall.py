#!/usr/bin/env python3
"""How often the labelled total, date and vendor appear in the OCR text, for OCR-setting experiments.

Usage: scripts/ocr-recall.py [--jobs N] [DIR ...] -- [receipts ocr flags]
Runs `receipts ocr IMAGE FLAGS` on every labelled image (image + same-name .json) and prints, per
folder, the share of receipts whose ground-truth total (and date, in any common spelling) appears
in the text; the vendor counts when its letters and digits (case, spaces and punctuation ignored, as
`receipts eval` scores it) appear in the text's. Default folders: ../shared/receipts/sroie ../shared/receipts/wildreceipt.
"""
import json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

args = sys.argv[1:]
flags = []
if "--" in args:
    i = args.index("--"); flags = args[i + 1:]; args = args[:i]
jobs = os.cpu_count() or 2
if args[:1] == ["--jobs"]:
    jobs = int(args[1]); args = args[2:]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
dirs = args or [os.path.join(root, "..", "shared", "receipts", d) for d in ("sroie", "wildreceipt")] + [os.path.join(root, "TestReceipts")]
binary = os.environ.get("RECEIPTS_BIN", os.path.join(root, ".build", "release", "receipts"))

def norm(s):
    return re.sub(r"[\s,]", "", s.replace(",", "."))

def date_forms(iso):
    y, m, d = iso.split("-")
    forms = set()
    for dd in (d, str(int(d))):
        for mm in (m, str(int(m))):
            for yy in (y, y[2:]):
                for sep in "/-.":
                    forms.add(f"{dd}{sep}{mm}{sep}{yy}"); forms.add(f"{mm}{sep}{dd}{sep}{yy}")
                    forms.add(f"{yy}{sep}{mm}{sep}{dd}")
    months = "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split()
    mon = months[int(m) - 1]
    for dd in (d, str(int(d))):
        for yy in (y, y[2:]):
            forms.update({f"{dd}{mon}{yy}", f"{dd}-{mon}-{yy}", f"{dd}/{mon}/{yy}", f"{mon}{dd},{yy}", f"{mon}{dd}{yy}"})
    return {f.upper().replace(" ", "") for f in forms}

def run(image):
    stem = os.path.splitext(image)[0]
    truth = json.load(open(stem + ".expected.json" if os.path.exists(stem + ".expected.json") else stem + ".json"))
    out = subprocess.run([binary, "ocr", image] + flags, capture_output=True, text=True,
                         env=dict(os.environ, OMP_THREAD_LIMIT="1")).stdout
    text = norm(out).upper()
    tot = truth.get("total"); date = truth.get("date")
    has_total = None if tot is None else (norm(tot) in text or norm(tot).rstrip("0").rstrip(".") + " " in norm(out) )
    has_date = None if date is None else any(f in out.upper().replace(" ", "") for f in date_forms(date))
    vendor = truth.get("vendor")
    letters = lambda s: re.sub(r"[\W_]", "", s).upper()
    has_vendor = None if not vendor else letters(vendor) in letters(out)
    return image, has_total, has_date, has_vendor

for d in dirs:
    images = sorted(os.path.join(d, f) for f in os.listdir(d)
                    if f.lower().endswith((".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp", ".gif"))
                    and any(os.path.exists(os.path.join(d, os.path.splitext(f)[0] + ext)) for ext in (".json", ".expected.json")))
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(run, images))
    t = [r[1] for r in results if r[1] is not None]; dt = [r[2] for r in results if r[2] is not None]
    vt = [r[3] for r in results if r[3] is not None]
    print(f"{os.path.basename(os.path.normpath(d))}: total in text {sum(t)}/{len(t)} ({100*sum(t)/max(1,len(t)):.0f}%), "
          f"date in text {sum(dt)}/{len(dt)} ({100*sum(dt)/max(1,len(dt)):.0f}%), "
          f"vendor in text {sum(vt)}/{len(vt)} ({100*sum(vt)/max(1,len(vt)):.0f}%)  flags={' '.join(flags) or '(default)'}")
    if os.environ.get("MISSES"):
        for r in results:
            if r[1] is False: print("  total missing:", os.path.basename(r[0]))
