#!/usr/bin/env python3
"""Generate the project's synthetic test receipts in TestReceipts/.

Every image is drawn from scratch (no real receipt is copied), next to a
``<name>.expected.json`` ground-truth file in the ``analysis`` schema, plus the
broken files in ``TestReceipts/bad/``. The output is committed, so CI never runs
this script; run it only to change or add receipts.

Set-up (once):
    pip install -r scripts/requirements-test-receipts.txt   # Pillow, fpdf2 (the PDFs)
    apt-get install fonts-dejavu-core       # DejaVu Sans / Sans Mono (usually present)
    apt-get install libheif-examples        # heif-enc, for the HEIC
    apt-get install tesseract-ocr           # only for --verify

Usage:
    python3 scripts/make-test-receipts.py            # regenerate TestReceipts/
    python3 scripts/make-test-receipts.py --check    # regenerate into a temp dir, compare with TestReceipts/
    python3 scripts/make-test-receipts.py --verify   # OCR every image with tesseract --psm 6 and check that
                                                     # the printed vendor, date and total are read

Output is deterministic: a fixed seed per receipt, no clocks, no threads. Bytes
are identical from run to run with the same Pillow version (its wheels bundle the
FreeType, libjpeg-turbo, libtiff and libwebp that do the rendering and encoding);
another Pillow version may change pixels and bytes, never the ground truth.
"""

from __future__ import annotations

import argparse
import datetime
import filecmp
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

try:
    from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont, ImageOps, features
    import PIL
except ImportError:  # pragma: no cover - set-up hint
    sys.exit("make-test-receipts: Pillow is missing; install it with `pip install pillow`")

SEED = 20240314
TESTED_PILLOW = "13.0.0"
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "TestReceipts"
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = {
    "mono": "DejaVuSansMono.ttf",
    "mono-bold": "DejaVuSansMono-Bold.ttf",
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
}

D = Decimal
CENT = D("0.01")


# ----------------------------------------------------------------------------------------------
# Money and dates


def m(x) -> Decimal:
    """Round to cents, half up (as tills do)."""
    return D(x).quantize(CENT, ROUND_HALF_UP)


def vat_included(gross: Decimal, rate: int) -> Decimal:
    """The VAT inside a VAT-inclusive gross amount."""
    return m(gross * rate / (100 + rate))


def num(d: Decimal, places: int = 2) -> str:
    return f"{d:.{places}f}"


# ISO 4217 minor units of the currencies here that have none in practice (JPY has none; IDR has two
# on paper and none on any receipt): their money is written whole, in the ground truth as printed.
WHOLE_UNITS = {"JPY", "IDR"}


def places(currency: str) -> int:
    return 0 if currency in WHOLE_UNITS else 2


def yen(d: Decimal) -> str:
    """5160 -> '¥5,160'."""
    return f"¥{d:,.0f}"


def rupiah(d: Decimal) -> str:
    """224400 -> '224.400' (Indonesian thousands dots, no minor units)."""
    return f"{d:,.0f}".replace(",", ".")


def gbp(d: Decimal) -> str:
    return f"£{d:,.2f}"


def usd(d: Decimal) -> str:
    return f"${d:,.2f}"


def eu(d: Decimal, places: int = 2) -> str:
    """1234.5 -> '1.234,50' (German/French style)."""
    s = f"{d:,.{places}f}"
    return s.replace(",", "\0").replace(".", ",").replace("\0", ".")


@dataclass
class Item:
    description: str
    quantity: str
    unit_price: str
    amount: Decimal

    def json(self, currency: str = "GBP") -> dict:
        return {"description": self.description, "quantity": self.quantity,
                "unitPrice": self.unit_price, "amount": num(self.amount, places(currency))}


def priced(lines) -> tuple[list[Item], Decimal]:
    """Items from (description, quantity, unit price) rows, and the sum of their amounts."""
    items = [Item(d, str(q), num(p), m(p * q)) for d, q, p in lines]
    return items, sum((i.amount for i in items), D(0))


@dataclass
class Truth:
    """Ground truth plus what the receipt prints, for --verify."""
    vendor: str
    date: date
    total: Decimal
    tax: Decimal | None
    currency: str
    category: str
    items: list[Item]
    printed_date: str
    printed_total: str

    def json(self) -> dict:
        return {
            "vendor": self.vendor,
            "date": self.date.isoformat(),
            "total": num(self.total, places(self.currency)),
            "tax": None if self.tax is None else num(self.tax, places(self.currency)),
            "currency": self.currency,
            "category": self.category,
            "lineItems": [i.json(self.currency) for i in self.items],
        }


# ----------------------------------------------------------------------------------------------
# Layout: a receipt is a list of rows; each row holds runs of text placed on a character grid.

_font_cache: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}


def font(kind: str, size: int) -> ImageFont.FreeTypeFont:
    key = (kind, size)
    if key not in _font_cache:
        path = FONT_DIR / FONT_FILES[kind]
        if not path.exists():
            sys.exit(f"make-test-receipts: font {path} is missing; install it with `apt-get install fonts-dejavu-core`")
        _font_cache[key] = ImageFont.truetype(str(path), size)
    return _font_cache[key]


# style -> (font kind suffix, size factor); the family ("mono" or "sans") is the receipt's
STYLES = {
    "n": ("", 1.0),        # normal
    "b": ("-bold", 1.0),   # bold
    "s": ("", 0.85),       # small
    "B": ("-bold", 1.3),   # big bold (totals)
    "H": ("-bold", 1.15),  # heading
    "T": ("title", 1.5),   # store name: always DejaVu Sans Bold (at 1.7x tesseract --psm 6 drops the line)
}


@dataclass
class Run:
    text: str
    x: float      # in character columns from the left margin
    align: str    # "l", "r" or "c": x is the left edge, right edge or centre
    style: str


@dataclass
class Row:
    runs: list[Run] = field(default_factory=list)
    style: str = "n"
    space: float = 0.0   # a blank row of this many line heights
    rule: str = ""       # a row of this character across the width
    barcode: int = 0     # a barcode with this seed


class Receipt:
    """A receipt laid out on a grid of `cols` monospace columns."""

    def __init__(self, cols: int = 38, size: int = 26, family: str = "mono", margin: float = 1.5):
        self.cols, self.size, self.family = cols, size, family
        self.adv = font("mono", size).getlength("0")
        self.margin = round(margin * self.adv)
        self.width = round(cols * self.adv) + 2 * self.margin
        self.rows: list[Row] = []

    # -- building
    def text(self, s: str, style: str = "n", align: str = "l") -> Receipt:
        x = {"l": 0, "c": self.cols / 2, "r": self.cols}[align]
        self.rows.append(Row([Run(s, x, align, style)], style))
        return self

    def center(self, s: str, style: str = "n") -> Receipt:
        return self.text(s, style, "c")

    def lr(self, left: str, right: str, style: str = "n") -> Receipt:
        self.rows.append(Row([Run(left, 0, "l", style), Run(right, self.cols, "r", style)], style))
        return self

    def row(self, cells: list[tuple[str, float, str]], style: str = "n") -> Receipt:
        self.rows.append(Row([Run(t, x, a, style) for t, x, a in cells], style))
        return self

    def rule(self, ch: str = "-") -> Receipt:
        self.rows.append(Row(rule=ch))
        return self

    def space(self, lines: float = 0.5) -> Receipt:
        self.rows.append(Row(space=lines))
        return self

    def barcode(self, seed: int) -> Receipt:
        self.rows.append(Row(barcode=seed))
        return self

    # -- drawing
    def _font(self, style: str) -> ImageFont.FreeTypeFont:
        suffix, factor = STYLES[style]
        size = round(self.size * factor)
        if suffix == "title":
            return font("sans-bold", size)
        return font(self.family + suffix, size)

    def _height(self, row: Row) -> int:
        if row.space:
            return round(row.space * self.size * 1.35)
        if row.barcode:
            return round(self.size * 3.2)
        return round(STYLES[row.style][1] * self.size * 1.38)

    def render(self, paper: int = 250, ink: int = 28, top: float = 1.5, bottom: float = 2.0) -> Image.Image:
        pad_top, pad_bottom = round(top * self.size), round(bottom * self.size)
        height = pad_top + sum(self._height(r) for r in self.rows) + pad_bottom
        img = Image.new("L", (self.width, height), paper)
        draw = ImageDraw.Draw(img)
        y = pad_top
        for row in self.rows:
            h = self._height(row)
            if row.rule:
                f = font("mono", self.size)
                draw.text((self.margin, y + round(self.size * 1.0)), row.rule * self.cols, font=f, fill=ink, anchor="ls")
            elif row.barcode:
                self._draw_barcode(draw, row.barcode, y, h, ink)
            else:
                for run in row.runs:
                    f = self._font(run.style)
                    px = self.margin + run.x * self.adv
                    anchor = {"l": "ls", "r": "rs", "c": "ms"}[run.align]
                    baseline = y + round(h * 0.74)
                    draw.text((px, baseline), run.text, font=f, fill=ink, anchor=anchor)
            y += h
        return img

    def _draw_barcode(self, draw: ImageDraw.ImageDraw, seed: int, y: int, h: int, ink: int) -> None:
        rng = random.Random(seed)
        unit = max(2, round(self.adv / 6))
        bars = []
        while sum(bars) < self.cols * self.adv * 0.6:
            bars.append(unit * rng.choice((1, 1, 2, 3)))
        x = self.margin + (self.cols * self.adv - sum(bars)) / 2
        for i, w in enumerate(bars):
            if i % 2 == 0:
                draw.rectangle((round(x), y + 6, round(x + w) - 1, y + h - 10), fill=ink)
            x += w


# ----------------------------------------------------------------------------------------------
# Image effects: all pure Pillow, all driven by a seeded random.Random


def noise_image(rng: random.Random, size: tuple[int, int], sigma: float) -> Image.Image:
    """Roughly Gaussian noise centred on 128 (sum of three uniform images)."""
    w, h = size
    a, b, c = (Image.frombytes("L", size, rng.randbytes(w * h)) for _ in range(3))
    n = ImageChops.add(ImageChops.add(a, b, scale=2.0), c, scale=2.0)  # a/4 + b/4 + c/2, sd ~45
    k = sigma / 45.0
    return n.point(lambda v: max(0, min(255, round(128 + (v - 128) * k))))


def add_noise(img: Image.Image, rng: random.Random, sigma: float) -> Image.Image:
    bands = [ImageChops.add(band, noise_image(rng, img.size, sigma), scale=1.0, offset=-128)
             for band in img.split()]
    return Image.merge(img.mode, bands)


def background(rng: random.Random, size: tuple[int, int], base: tuple[int, int, int]) -> Image.Image:
    """A dark, blotchy table top."""
    w, h = size
    small = Image.new("RGB", (12, 16))
    cells = []
    for _ in range(12 * 16):
        shade = rng.randint(-16, 16)
        cells.append(tuple(max(0, min(255, c + shade + rng.randint(-3, 3))) for c in base))
    small.putdata(cells)
    bg = small.resize(size, Image.Resampling.BICUBIC)
    grain = Image.new("RGB", (w // 4, h // 4))
    grain.putdata([(v, v, v) for v in rng.randbytes((w // 4) * (h // 4))])
    grain = grain.resize(size, Image.Resampling.BILINEAR).point(lambda v: 118 + v * 20 // 255)
    return ImageChops.add(bg, grain, scale=1.0, offset=-128)


def perspective_coeffs(dst: list[tuple[float, float]], src: list[tuple[float, float]]) -> list[float]:
    """Coefficients for Image.transform(PERSPECTIVE) mapping output points dst to input points src."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); rhs.append(u)
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y]); rhs.append(v)
    n = 8  # Gaussian elimination with partial pivoting
    a = [r + [b] for r, b in zip(rows, rhs)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def lighting(size: tuple[int, int], centre: tuple[float, float], dark: float) -> Image.Image:
    """A multiplier image: 255 near `centre` (fractions of the size), falling to 255*(1-dark)."""
    w, h = size
    g = Image.radial_gradient("L")  # 256x256, 0 in the middle, 255 at radius 128+
    cx, cy = centre
    big = g.resize((w * 2, h * 2), Image.Resampling.BILINEAR)
    left, top = round(w * (1 - cx)), round(h * (1 - cy))
    crop = big.crop((left, top, left + w, top + h))
    return crop.point(lambda v: round(255 - min(v, 255) * dark))


def photograph(receipt: Image.Image, rng: random.Random, *, angle: float, persp: float, sigma: float,
               dark: float, blur: float, margin: float = 0.22, bg=(62, 56, 50), vertical: float = 0.35) -> Image.Image:
    """A phone photo of `receipt`: on a table, turned, in perspective, unevenly lit, noisy.
    `vertical` scales the table seen above and below it (0: the paper runs off the photo's top and
    bottom, as in a photo of a part of a long receipt)."""
    w, h = receipt.size
    mx, my = round(w * margin), round(h * margin * vertical)
    pad = round(0.06 * (w + 2 * mx))  # cropped away after turning, so no flat corners show
    mx, my = mx + pad, my + pad
    size = (w + 2 * mx, h + 2 * my)
    canvas = background(rng, size, bg)
    paper = Image.merge("RGB", (receipt, receipt.point(lambda v: max(0, v - 3)), receipt.point(lambda v: max(0, v - 12))))
    shadow = Image.new("L", size, 0)
    ImageDraw.Draw(shadow).rectangle((mx + 8, my + 10, mx + w + 8, my + h + 10), fill=120)
    shadow = shadow.filter(ImageFilter.GaussianBlur(9))
    canvas = Image.composite(Image.new("RGB", size, (20, 18, 16)), canvas, shadow)
    canvas.paste(paper, (mx, my))
    canvas = canvas.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=bg)
    W, H = size
    d = persp * W
    dst = [(0, 0), (W, 0), (W, H), (0, H)]
    src = [(-d, -d * 0.3), (W + d, -d * 0.3), (W - d * 0.2, H), (d * 0.2, H)]
    canvas = canvas.transform(size, Image.Transform.PERSPECTIVE, perspective_coeffs(dst, src),
                              resample=Image.Resampling.BICUBIC, fillcolor=bg)
    light = lighting(size, (0.35 + rng.random() * 0.1, 0.3 + rng.random() * 0.1), dark)
    canvas = ImageChops.multiply(canvas, Image.merge("RGB", (light, light, light)))
    canvas = canvas.crop((pad, pad, W - pad, H - pad))
    if blur:
        canvas = canvas.filter(ImageFilter.GaussianBlur(blur))
    return add_noise(canvas, rng, sigma)


def thermal(img: Image.Image, rng: random.Random, sigma: float = 3.0, blur: float = 0.7) -> Image.Image:
    """Paper grain and print softness on a flat scan. (Sharp pixel noise on top of the blur made
    tesseract garble whole item lines of otherwise clean receipts, so the grain is blurred too.)"""
    if sigma:
        img = add_noise(img, rng, sigma)
    return img.filter(ImageFilter.GaussianBlur(blur)) if blur else img


# ----------------------------------------------------------------------------------------------
# The receipts. Each returns (image, truth); the registry below names the file and its format.


def card_digits(rng: random.Random) -> str:
    return f"{rng.randint(0, 9999):04d}"


def uk_fuel_unleaded(rng: random.Random):
    price = D("1.459")
    litres = D(rng.randint(3200, 5200)) / 100
    total = m(litres * price)
    vat = vat_included(total, 20)
    r = Receipt(cols=36, size=26)
    r.center("NORTHWAY FUELS", "T")
    r.center("Moorside Road Filling Station")
    r.center("14 Moorside Road, Harrogate")
    r.center("North Yorkshire HG2 7PL")
    r.center("Tel: 01632 960418")
    r.center("VAT Reg No: GB 284 5519 63")
    r.rule()
    r.lr("Date: 14/03/2024", "Time: 08:42")
    r.lr(f"Till: 2  Trans: {rng.randint(10000, 99999)}", "Op: 05")
    r.rule()
    r.lr("Pump 4  UNLEADED", gbp(total))
    r.text(f"  {litres} L @ 145.9p/L")
    r.rule()
    r.lr("TOTAL", gbp(total), "B")
    r.space()
    r.lr("VISA DEBIT", gbp(total))
    r.text(f"Card: ************{card_digits(rng)}")
    r.text(f"Auth code: {rng.randint(0, 999999):06d}  CONTACTLESS")
    r.rule()
    r.lr("Net amount", gbp(total - vat))
    r.lr("VAT @ 20%", gbp(vat))
    r.rule()
    r.center("THANK YOU FOR YOUR CUSTOM", "b")
    r.center("PLEASE CALL AGAIN")
    img = thermal(r.render(), rng)
    return img, Truth("Northway Fuels", date(2024, 3, 14), total, vat, "GBP", "Fuel",
                      [Item("Pump 4 UNLEADED", str(litres), "1.459", total)], "14/03/2024", num(total))


def uk_fuel_diesel(rng: random.Random):
    price = D("1.529")
    litres = D(rng.randint(5000, 6800)) / 100
    fuel = m(litres * price)
    shop = [("SCREENWASH 5L", 1, D("4.99")), ("COFFEE REGULAR", 2, D("2.35"))]
    items = [Item("PUMP 2 DIESEL", str(litres), "1.529", fuel)]
    for desc, q, p in shop:
        items.append(Item(desc, str(q), num(p), m(p * q)))
    total = sum((i.amount for i in items), D(0))
    vat = vat_included(total, 20)
    cash = D("120.00") if total < 120 else D("140.00")
    r = Receipt(cols=40, size=26)
    r.center("KESTREL FUEL", "T")
    r.center("A64 Tadcaster Road Services")
    r.center("Bramham, Wetherby LS23 6QA")
    r.center("Tel 0113 496 0732")
    r.center("VAT No. 731 4408 25")
    r.space(0.4)
    r.lr("02 AUG 2023", "17:05")
    r.lr(f"RECEIPT NO {rng.randint(100000, 999999)}", "TILL 1")
    r.rule("=")
    r.row([("DESCRIPTION", 0, "l"), ("QTY", 25, "r"), ("AMOUNT", 40, "r")], "b")
    r.row([("PUMP 2 DIESEL", 0, "l"), (f"{litres}L", 25, "r"), (num(fuel), 40, "r")])
    r.text("  @ 152.9 p/litre", "s")
    for desc, q, p in shop:
        r.row([(desc, 0, "l"), (str(q), 25, "r"), (num(m(p * q)), 40, "r")])
        if q > 1:
            r.text(f"  {q} x {num(p)}", "s")
    r.rule("=")
    r.lr(f"{len(items) + 1} ITEMS", "")
    r.lr("TOTAL", gbp(total), "B")
    r.lr("CASH", gbp(cash))
    r.lr("CHANGE", gbp(cash - total))
    r.rule()
    r.row([("VAT", 0, "l"), ("NET", 20, "r"), ("VAT", 30, "r"), ("GROSS", 40, "r")], "s")
    r.row([("20.0%", 0, "l"), (num(total - vat), 20, "r"), (num(vat), 30, "r"), (num(total), 40, "r")], "s")
    r.lr("VAT @ 20% INCLUDED", gbp(vat))
    r.rule()
    r.center("THANK YOU - DRIVE SAFELY", "b")
    r.barcode(rng.randint(0, 10**9))
    img = thermal(r.render(paper=252, ink=35), rng, sigma=2.5)
    return img, Truth("Kestrel Fuel", date(2023, 8, 2), total, vat, "GBP", "Fuel", items, "02 AUG 2023", num(total))


def uk_parking(rng: random.Random):
    total = D("7.50")
    vat = vat_included(total, 20)
    r = Receipt(cols=32, size=26)
    r.center("CASTLEGATE PARKING", "T")
    r.center("Riverside Car Park")
    r.center("Skeldergate, York YO1 6DH")
    r.center("Enquiries: 01632 960771")
    r.center("VAT Reg: GB 902 1187 44")
    r.rule()
    r.center("PARKING RECEIPT", "H")
    r.rule()
    r.lr("Ticket No", f"{rng.randint(1000000, 9999999)}")
    r.lr("Entry", "12/06/24 09:12")
    r.lr("Exit", "12/06/24 13:47")
    r.lr("Duration", "4h 35m")
    r.lr("Tariff", "Up to 5 hours")
    r.rule()
    r.lr("AMOUNT PAID", gbp(total), "B")
    r.lr("Paid by", "MASTERCARD")
    r.lr("Card", f"**** {card_digits(rng)}")
    r.lr("VAT @ 20% incl.", gbp(vat))
    r.rule()
    r.center("THANK YOU", "b")
    r.center("Drive safely")
    img = thermal(r.render(), rng)
    return img, Truth("Castlegate Parking", date(2024, 6, 12), total, vat, "GBP", "Other",
                      [], "12/06/24", num(total))


def uk_parking_ticket(rng: random.Random):
    total = D("3.40")
    r = Receipt(cols=28, size=26)
    r.center("APEX PARKING", "T")
    r.center("Station Approach Car Park")
    r.center("Hebden Bridge HX7 8AD")
    r.rule("=")
    r.center("PAY & DISPLAY", "H")
    r.rule("=")
    r.lr("Date", "17/07/2025")
    r.lr("Time", "10:26")
    r.lr("Expires", "12:26")
    r.lr("Machine", f"{rng.randint(10, 99)}")
    r.lr("Tariff", "2 hours")
    r.rule()
    r.lr("TOTAL", gbp(total), "B")
    r.lr("Paid", "CASH")
    r.rule()
    r.center("DISPLAY ON DASHBOARD")
    r.center("THANK YOU", "b")
    img = r.render(paper=255, ink=0)
    return img, Truth("Apex Parking", date(2025, 7, 17), total, None, "GBP", "Other",
                      [], "17/07/2025", num(total))


def uk_garage_mot(rng: random.Random):
    tyre = D(rng.choice(("74.50", "78.50", "82.00")))
    hours = D("1.5")
    rate = D("62.00")
    lines = [  # description, qty, unit, vatable
        ("MOT TEST CLASS 4", D(1), D("54.85"), False),
        ("TYRE 205/55 R16 91V", D(2), tyre, True),
        ("WHEEL BALANCE", D(2), D("8.00"), True),
        ("LABOUR (HRS)", hours, rate, True),
    ]
    items = [Item(d, str(q), num(u), m(q * u)) for d, q, u, _ in lines]
    subtotal = sum((i.amount for i in items), D(0))
    vatable = sum((m(q * u) for _, q, u, v in lines if v), D(0))
    vat = m(vatable * D("0.20"))
    total = subtotal + vat
    r = Receipt(cols=42, size=25)
    r.center("BROOKFIELD MOTORS", "T")
    r.center("MOT Testing & Service Centre")
    r.center("Unit 7 Canal Street, Leeds LS12 2PX")
    r.center("Tel: 0113 496 0185")
    r.center("VAT Reg No: GB 417 2290 38")
    r.rule("=")
    r.center("INVOICE / RECEIPT", "H")
    r.lr(f"Invoice: BM-{rng.randint(10000, 99999)}", "Date: 21/10/2024")
    r.lr("Vehicle: VU63 KZX", "Mileage: 58,214")
    r.rule()
    r.row([("DESCRIPTION", 0, "l"), ("QTY", 24, "r"), ("UNIT", 33, "r"), ("AMOUNT", 42, "r")], "b")
    for (d, q, u, v), it in zip(lines, items):
        r.row([(d + ("" if v else " *"), 0, "l"), (str(q), 24, "r"), (num(u), 33, "r"), (num(it.amount), 42, "r")])
    r.rule()
    r.lr("SUBTOTAL", gbp(subtotal))
    r.lr("VAT @ 20%", gbp(vat))
    r.lr("TOTAL", gbp(total), "B")
    r.space(0.3)
    r.lr("PAID: DEBIT CARD", gbp(total))
    r.lr("BALANCE", gbp(D(0)))
    r.rule()
    r.text("* MOT test fee is outside the scope", "s")
    r.text("  of VAT", "s")
    r.center("THANK YOU FOR YOUR BUSINESS", "b")
    img = thermal(r.render(paper=251), rng)
    return img, Truth("Brookfield Motors", date(2024, 10, 21), total, vat, "GBP", "Maintenance", items,
                      "21/10/2024", num(total))


def uk_insurance(rng: random.Random):
    net = D(rng.randint(80000, 120000)) / 100
    ipt = m(net * D("0.12"))
    total = net + ipt
    policy = f"HLM-{rng.randint(1000000, 9999999)}"
    r = Receipt(cols=46, size=24, family="sans", margin=2.5)
    r.text("Harbourline Insurance", "T")
    r.text("Harbourline Insurance Services Ltd, 3 Quay Street,")
    r.text("Bristol BS1 4DB  -  Tel 0117 496 0390")
    r.text("Authorised and regulated by the Financial Conduct", "s")
    r.text("Authority. Firm reference number 700123.", "s")
    r.space(0.8)
    r.text("PAYMENT RECEIPT - MOTOR INSURANCE", "H")
    r.space(0.4)
    r.lr("Policyholder", "Mr J Whitfield")
    r.lr("Policy number", policy)
    r.lr("Vehicle", "Skoda Octavia  YF68 RNU")
    r.lr("Cover", "Comprehensive")
    r.lr("Period of cover", "01/09/2024 to 31/08/2025")
    r.lr("Date of payment", "28 August 2024")
    r.lr("Payment method", f"Debit card ending {card_digits(rng)}")
    r.space(0.4)
    r.rule()
    r.lr("Annual premium", gbp(net))
    r.lr("Insurance Premium Tax @ 12%", gbp(ipt))
    r.rule()
    r.lr("Total paid", gbp(total), "B")
    r.space(0.6)
    r.text("Insurance is exempt from VAT.", "s")
    r.text("Please keep this receipt with your policy documents.", "s")
    r.space(0.4)
    r.text("Thank you for choosing Harbourline.", "b")
    img = thermal(r.render(paper=255, ink=20), rng, sigma=2.0, blur=0.4)
    return img, Truth("Harbourline Insurance", date(2024, 8, 28), total, ipt, "GBP", "Insurance",
                      [Item("Annual premium", "1", num(net), net)],
                      "28 August 2024", f"{total:,.2f}")


def uk_vehicle_tax(rng: random.Random):
    total = D("195.00")
    ref = f"{rng.randint(10**11, 10**12 - 1)}"
    r = Receipt(cols=44, size=25, family="sans", margin=2.5)
    r.text("DVLA", "T")
    r.text("Driver and Vehicle Licensing Agency", "b")
    r.text("Swansea SA6 7JL")
    r.space(0.8)
    r.text("Vehicle tax payment confirmation", "H")
    r.space(0.4)
    r.text("Your vehicle is now taxed.")
    r.space(0.4)
    r.lr("Vehicle registration number", "KX19 TPE")
    r.lr("Make", "VOLKSWAGEN")
    r.lr("Tax period", "12 months")
    r.lr("Vehicle tax starts", "1 May 2025")
    r.lr("Date of payment", "28 April 2025")
    r.lr("Payment method", "Debit card")
    r.lr("Transaction reference", ref)
    r.rule()
    r.lr("Amount paid", gbp(total), "B")
    r.rule()
    r.text("Vehicle tax is not subject to VAT.", "s")
    r.text("You will get a reminder before your tax runs out.", "s")
    r.space(0.4)
    r.text("Thank you.", "b")
    img = r.render(paper=255, ink=11)
    return img, Truth("DVLA", date(2025, 4, 28), total, None, "GBP", "Vehicle Tax",
                      [], "28 April 2025", num(total))


def uk_supermarket(rng: random.Random):
    catalogue = [  # description, unit price, VAT code (A = 20%, Z = 0%)
        ("SEMI SKIMMED MILK 2L", "1.55", "Z"), ("WHOLEMEAL BREAD", "1.40", "Z"),
        ("FREE RANGE EGGS 12", "3.25", "Z"), ("BANANAS LOOSE", "0.21", "Z"),
        ("CHEDDAR 400G", "3.60", "Z"), ("ORANGE JUICE 1L", "1.85", "A"),
        ("WASHING UP LIQUID", "1.20", "A"), ("SPARKLING WATER", "0.65", "A"),
        ("KITCHEN ROLL 4PK", "3.50", "A"), ("CHOCOLATE BAR", "0.95", "A"),
    ]
    chosen = catalogue[:]
    rng.shuffle(chosen)
    chosen = chosen[:8]
    items, rows = [], []
    for desc, p, code in chosen:
        q = rng.choice((1, 1, 1, 2, 3)) if desc != "BANANAS LOOSE" else 6
        price = D(p)
        amt = m(price * q)
        items.append(Item(desc, str(q), num(price), amt))
        rows.append((desc, q, price, amt, code))
    total = sum((i.amount for i in items), D(0))
    gross_a = sum((a for *_, a, c in rows if c == "A"), D(0))
    gross_z = total - gross_a
    vat_a = vat_included(gross_a, 20)
    cash = D("40.00") if total <= 40 else D("50.00")
    r = Receipt(cols=42, size=26)
    r.center("GREENACRE FOODS", "T")
    r.center("Market Place, Otley LS21 3AQ")
    r.center("Telephone 0113 496 0251")
    r.center("VAT Reg No 188 5502 17")
    r.rule()
    r.lr("03/11/24  15:31", f"ST 214 OP {rng.randint(100, 999)} TE 3")
    r.rule()
    r.row([("QTY", 0, "l"), ("ITEM", 4, "l"), ("PRICE", 30, "r"), ("AMOUNT", 42, "r")], "b")
    for desc, q, price, amt, code in rows:
        r.row([(str(q), 0, "l"), (desc, 4, "l"), (num(price), 30, "r"), (f"{num(amt)} {code}", 42, "r")])
    r.rule()
    r.row([("SUBTOTAL", 0, "l"), (num(total), 40, "r")])
    r.row([(f"{sum(int(i.quantity) for i in items)} ITEMS", 0, "l")])
    r.row([("BALANCE DUE", 0, "l"), (gbp(total), 40, "r")], "B")
    r.row([("CASH", 0, "l"), (gbp(cash), 40, "r")])
    r.row([("CHANGE", 0, "l"), (gbp(cash - total), 40, "r")])
    r.rule()
    r.row([("VAT", 0, "l"), ("RATE", 8, "l"), ("NET", 24, "r"), ("VAT", 32, "r"), ("GROSS", 42, "r")], "s")
    r.row([("A", 0, "l"), ("20.00%", 8, "l"), (num(gross_a - vat_a), 24, "r"), (num(vat_a), 32, "r"),
           (num(gross_a), 42, "r")], "s")
    r.row([("Z", 0, "l"), ("0.00%", 8, "l"), (num(gross_z), 24, "r"), ("0.00", 32, "r"), (num(gross_z), 42, "r")], "s")
    r.row([("TOTAL VAT", 0, "l"), (num(vat_a), 32, "r")], "s")
    r.rule()
    r.center("THANK YOU FOR SHOPPING LOCAL", "b")
    r.center("Please keep your receipt")
    r.barcode(rng.randint(0, 10**9))
    img = thermal(r.render(paper=249, ink=30), rng)
    return img, Truth("Greenacre Foods", date(2024, 11, 3), total, vat_a, "GBP", "Other", items,
                      "03/11/24", num(total))


def us_auto_parts(rng: random.Random):
    lines = [("MOTOR OIL 5W-30 5QT", 2, D("27.99")), ("OIL FILTER PH3614", 1, D("8.49")),
             ("WIPER BLADE 22IN", 2, D(rng.choice(("14.99", "16.99"))))]
    items, subtotal = priced(lines)
    tax = m(subtotal * D("0.06"))
    total = subtotal + tax
    r = Receipt(cols=38, size=25)
    r.center("LONE PINE AUTO PARTS", "T")
    r.center("1420 W Main St")
    r.center("Boise, ID 83702")
    r.center("(208) 555-0147")
    r.rule()
    r.lr("07/09/2024", "4:18 PM")
    r.lr(f"Store 118   Reg 2   Trans {rng.randint(1000, 9999)}", "")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.lr(d, num(it.amount))
        r.text(f"  {q} @ {num(p)}", "s")
    r.rule()
    r.lr("SUBTOTAL", num(subtotal))
    r.lr("SALES TAX 6.000%", num(tax))
    r.lr("TOTAL", usd(total), "B")
    r.space(0.3)
    r.lr("VISA", usd(total))
    r.text(f"ACCT: ************{card_digits(rng)}")
    r.lr("CHANGE DUE", usd(D(0)))
    r.rule()
    r.center("RETURNS WITHIN 30 DAYS WITH RECEIPT", "s")
    r.center("THANK YOU FOR SHOPPING WITH US", "b")
    img = thermal(r.render(), rng)
    return img, Truth("Lone Pine Auto Parts", date(2024, 7, 9), total, tax, "USD", "Maintenance", items,
                      "07/09/2024", num(total))


def us_diner(rng: random.Random):
    menu = [("BREAKFAST BURRITO", D("11.50")), ("SHORT STACK PANCAKES", D("8.25")),
            ("COFFEE", D("2.75")), ("ORANGE JUICE", D("3.95")), ("SIDE BACON", D("4.50"))]
    picks = [(d, rng.choice((1, 1, 2)), p) for d, p in menu]
    items = [Item(d, str(q), num(p), m(p * q)) for d, q, p in picks]
    subtotal = sum((i.amount for i in items), D(0))
    tax = m(subtotal * D("0.0825"))
    total = subtotal + tax
    r = Receipt(cols=36, size=26)
    r.center("BLUE MESA DINER", "T")
    r.center("905 Congress Ave")
    r.center("Austin, TX 78701")
    r.center("Tel (512) 555-0193")
    r.rule()
    r.lr(f"Server: Dana", f"Table {rng.randint(2, 30)}")
    r.lr("11/23/2024", "9:41 AM")
    r.lr(f"Check #{rng.randint(1000, 9999)}", "Guests 2")
    r.rule()
    for d, q, p in picks:
        r.lr(f"{q} {d}", num(m(p * q)))
    r.rule()
    r.lr("Subtotal", num(subtotal))
    r.lr("Tax 8.25%", num(tax))
    r.lr("TOTAL", usd(total), "B")
    r.space(0.3)
    r.lr("MASTERCARD", usd(total))
    r.text(f"XXXXXXXXXXXX{card_digits(rng)}")
    r.rule()
    r.center("THANK YOU! COME AGAIN", "b")
    img = thermal(r.render(), rng)
    return img, Truth("Blue Mesa Diner", date(2024, 11, 23), total, tax, "USD", "Other", items,
                      "11/23/2024", num(total))


def de_tankstelle(rng: random.Random):
    price = D("1.789")
    litres = D(rng.randint(3000, 4500)) / 100
    total = m(litres * price)
    vat = vat_included(total, 19)
    r = Receipt(cols=38, size=25)
    r.center("LINDENHOF TANKSTELLE", "T")
    r.center("Hauptstrasse 42")
    r.center("79098 Freiburg im Breisgau")
    r.center("Tel. 0761 555 0142")
    r.center("USt-IdNr. DE 318 442 907")
    r.rule()
    r.lr("Datum: 23.05.2024", "Uhrzeit: 07:58")
    r.lr(f"Beleg-Nr. {rng.randint(1000, 9999)}", "Kasse 1")
    r.rule()
    r.lr("Saeule 3  Super E10", f"{eu(total)} EUR")
    r.text(f"  {eu(litres)} l x {eu(price, 3)} EUR/l")
    r.rule()
    r.lr("SUMME EUR", eu(total), "B")
    r.space(0.3)
    r.lr("Girocard", f"{eu(total)} EUR")
    r.rule()
    r.row([("MwSt", 0, "l"), ("Netto", 20, "r"), ("MwSt", 29, "r"), ("Brutto", 38, "r")], "s")
    r.row([("A 19%", 0, "l"), (eu(total - vat), 20, "r"), (eu(vat), 29, "r"), (eu(total), 38, "r")], "s")
    r.rule()
    r.center("Vielen Dank fuer Ihren Besuch", "b")
    r.center("Gute Fahrt!")
    img = thermal(r.render(), rng)
    return img, Truth("Lindenhof Tankstelle", date(2024, 5, 23), total, vat, "EUR", "Fuel",
                      [Item("Saeule 3 Super E10", str(litres), str(price), total)], "23.05.2024", eu(total))


def fr_garage(rng: random.Random):
    lines = [("Vidange huile 5W30", D(1), D("58.00")), ("Filtre a huile", D(1), D("14.50")),
             ("Main d'oeuvre (h)", D("0.5"), D("64.00"))]
    items = [Item(d, str(q), num(p), m(q * p)) for d, q, p in lines]
    total = sum((i.amount for i in items), D(0))
    vat = vat_included(total, 20)
    r = Receipt(cols=38, size=25)
    r.center("GARAGE DU PARC", "T")
    r.center("12 avenue Jean Jaures")
    r.center("69007 Lyon")
    r.center("Tel. 04 72 55 01 38")
    r.center("SIRET 812 447 906 00015")
    r.center("TVA FR 47 812447906")
    r.rule()
    r.lr("Le 15/02/2025", "a 16:22")
    r.lr(f"Facture n. {rng.randint(1000, 9999)}", "Caisse 1")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.lr(d, eu(it.amount))
        r.text(f"  {str(q).replace('.', ',')} x {eu(p)}", "s")
    r.rule()
    r.lr("TOTAL HT", eu(total - vat))
    r.lr("TVA 20%", eu(vat))
    r.lr("TOTAL TTC", f"{eu(total)} EUR", "B")
    r.space(0.3)
    r.lr("CB", f"{eu(total)} EUR")
    r.rule()
    r.center("MERCI DE VOTRE VISITE", "b")
    r.center("A bientot")
    img = thermal(r.render(), rng)
    return img, Truth("Garage du Parc", date(2025, 2, 15), total, vat, "EUR", "Maintenance", items,
                      "15/02/2025", eu(total))


def uk_fuel_photo(rng: random.Random, shop: str, header: list, day: date, time: str, till: str, pump: str,
                  price: str, litres: tuple, card: str, look: dict):
    """A phone photo of a UK fuel receipt: `shop` over the `header` rows, one pump's fuel at `price`
    a litre (a random amount within `litres`), paid by `card`; `look` is `photograph`'s settings."""
    price = D(price)
    litres = D(rng.randint(*litres)) / 100
    total = m(litres * price)
    vat = vat_included(total, 20)
    printed = day.strftime("%d/%m/%Y")
    r = Receipt(cols=34, size=28)
    r.center(shop.upper(), "T")
    for row in header:
        r.center(row)
    r.rule()
    r.lr(printed, time)
    r.lr(f"Trans {rng.randint(1000, 9999)}", till)
    r.rule()
    r.lr(pump, gbp(total))
    r.text(f" {litres} ltr @ {price * 100:.1f}p")
    r.rule()
    r.lr("TOTAL", gbp(total), "B")
    r.lr(card, gbp(total))
    r.lr("VAT @ 20%", gbp(vat))
    r.rule()
    r.center("THANK YOU", "b")
    photo = photograph(r.render(paper=246, ink=30), rng, **look)
    return photo, Truth(shop, day, total, vat, "GBP", "Fuel", [Item(pump, str(litres), str(price), total)], printed, num(total))


def photo_rotated_fuel(rng: random.Random):
    """A phone photo: turned a few degrees, in perspective, unevenly lit, noisy, on a dark table."""
    return uk_fuel_photo(rng, "Fellside Fuels", ["Kendal Road, Sedbergh", "Cumbria LA10 5BX", "Tel 01632 960254",
                                                  "VAT No GB 655 1082 91"],
                         date(2025, 1, 19), "12:07", "Till 1", "PUMP 1 UNLEADED", "1.419", (2500, 4000), "MASTERCARD",
                         dict(angle=5.0, persp=0.05, sigma=12.0, dark=0.5, blur=0.9))


def photo_us_gas_station(rng: random.Random):
    """A mild colour photo of a US fuel receipt (taxes are in the pump price: no tax line)."""
    price = D("3.299")
    gallons = D(rng.randint(9000, 14000)) / 1000
    total = m(gallons * price)
    r = Receipt(cols=34, size=26)
    r.center("MESA RIDGE GAS", "T")
    r.center("2210 E Colfax Ave")
    r.center("Denver, CO 80206")
    r.center("(303) 555-0126")
    r.rule()
    r.lr("03/15/2025", "6:52 PM")
    r.lr(f"INVOICE {rng.randint(100000, 999999)}", "PUMP 6")
    r.rule()
    r.lr("REGULAR UNLEADED", "")
    r.lr(f"  {gallons} GAL @ $3.299/GAL", "")
    r.rule()
    r.lr("FUEL TOTAL", usd(total))
    r.lr("TOTAL", usd(total), "B")
    r.lr("DEBIT", usd(total))
    r.text(f"CARD # XXXXXXXXXXXX{card_digits(rng)}")
    r.rule()
    r.center("THANK YOU", "b")
    r.center("HAVE A NICE DAY")
    photo = photograph(r.render(paper=247, ink=30), rng, angle=-1.5, persp=0.015, sigma=4.0, dark=0.25,
                       blur=0.5, bg=(96, 90, 84))
    return photo, Truth("Mesa Ridge Gas", date(2025, 3, 15), total, None, "USD", "Fuel",
                        [Item("REGULAR UNLEADED", str(gallons), "3.299", total)], "03/15/2025", num(total))


def photo_lowres_carwash(rng: random.Random):
    """A low-resolution photo: about 300 px wide, JPEG quality 70."""
    total = D("12.00")
    vat = vat_included(total, 20)
    r = Receipt(cols=22, size=26, margin=1.0)
    r.center("SPARKLE", "T")
    r.center("HAND CAR WASH", "b")
    r.center("Leeds LS9 8AB")
    r.center("VAT 544 0917 20")
    r.rule()
    r.lr("05/04/2024", "11:20")
    r.rule()
    r.lr("MINI VALET", num(total))
    r.rule()
    r.lr("TOTAL", gbp(total), "B")
    r.lr("CASH", gbp(D("20.00")))
    r.lr("CHANGE", gbp(D("8.00")))
    r.lr("VAT 20%", gbp(vat))
    r.rule()
    r.center("THANK YOU", "b")
    photo = photograph(r.render(paper=245, ink=25), rng, angle=1.0, persp=0.01, sigma=3.0, dark=0.2, blur=0.4,
                       margin=0.05)
    w, h = photo.size
    small = photo.resize((300, round(h * 300 / w)), Image.Resampling.LANCZOS)
    return small, Truth("Sparkle Hand Car Wash", date(2024, 4, 5), total, vat, "GBP", "Maintenance",
                        [Item("MINI VALET", "1", num(total), total)], "05/04/2024", num(total))


def turned_scan_tyres(rng: random.Random):
    """A receipt fed into a scanner upside down: stored turned 180 degrees, with no EXIF orientation."""
    lines = [("TYRE 205/55 R16 91V", 2, D("68.50")), ("WHEEL BALANCING", 2, D("6.00")), ("TYRE DISPOSAL", 2, D("2.50"))]
    items, net = priced(lines)
    vat = m(net * D("0.20"))
    total = net + vat
    r = Receipt(cols=36, size=25)
    r.center("ASHBROOK TYRES", "T")
    r.center("Unit 4, Mill Lane, Stroud GL5 3QA")
    r.center("Tel 01632 960419")
    r.center("VAT Reg GB 718 2290 53")
    r.rule()
    r.lr("Invoice", f"{rng.randint(20000, 29999)}")
    r.lr("Date", "21/10/2024")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.lr(d, num(it.amount))
        r.text(f"  {q} x {num(p)}", "s")
    r.rule()
    r.lr("NET", num(net))
    r.lr("VAT 20%", num(vat))
    r.lr("TOTAL", gbp(total), "B")
    r.lr("VISA", gbp(total))
    r.rule()
    r.center("THANK YOU", "b")
    img = thermal(r.render(), rng).rotate(180)
    return img, Truth("Ashbrook Tyres", date(2024, 10, 21), total, vat, "GBP", "Maintenance", items,
                      "21/10/2024", num(total))


def photo_sideways_fuel(rng: random.Random):
    """A phone photo stored sideways with its EXIF orientation lost (as some apps send photos on)."""
    photo, truth = uk_fuel_photo(rng, "Hollins Green Fuel", ["Station Road, Settle", "North Yorkshire BD24 9AA",
                                                              "Tel 01632 960587", "VAT No GB 402 7713 16"],
                                 date(2025, 2, 7), "08:41", "Till 2", "PUMP 3 DIESEL", "1.459", (3000, 4500), "VISA",
                                 dict(angle=2.0, persp=0.02, sigma=5.0, dark=0.3, blur=0.5))
    return photo.rotate(90, expand=True), truth


def jp_fuel_yen(rng: random.Random):
    """A phone photo of a Japanese fuel receipt in yen: no minor units (`¥5,160`), year-first date,
    consumption tax 10% included (rounded down, as tills there do), cash and change."""
    price = D(172)
    litres = D(rng.randint(2500, 3800)) / 100
    fuel = (litres * price).quantize(D(1), ROUND_HALF_UP)
    wash = D(800)
    total = fuel + wash
    tax = (total * 10 / 110).quantize(D(1), rounding="ROUND_FLOOR")
    cash = D(10000)
    r = Receipt(cols=34, size=27)
    r.center("KAWASEMI FUEL", "T")
    r.center("Kawasemi Service Station")
    r.center("3-14-2 Minato-cho, Yokohama")
    r.center("TEL 045-555-0142")
    r.center("Reg. No. T4020001077461")
    r.rule()
    r.lr("2024/09/18 (WED)", "14:26")
    r.lr(f"Pump 3", f"Slip {rng.randint(1000, 9999)}")
    r.rule()
    r.lr("Regular Gasoline", yen(fuel))
    r.text(f"  {litres} L x {yen(price)}/L")
    r.lr("Car Wash Standard", yen(wash))
    r.rule()
    r.lr("TOTAL", yen(total), "B")
    r.lr("(Incl. Tax 10%", f"{yen(tax)})")
    r.lr("CASH", yen(cash))
    r.lr("CHANGE", yen(cash - total))
    r.rule()
    r.center("Thank you. Drive safely!", "b")
    photo = photograph(r.render(paper=247, ink=30), rng, angle=2.0, persp=0.02, sigma=6.0, dark=0.3,
                       blur=0.6, bg=(88, 84, 92))
    items = [Item("Regular Gasoline", str(litres), "172", fuel), Item("Car Wash Standard", "1", "800", wash)]
    return photo, Truth("Kawasemi Fuel", date(2024, 9, 18), total, tax, "JPY", "Fuel", items,
                        "2024/09/18", f"{total:,.0f}")


def id_garage_rupiah(rng: random.Random):
    """An Indonesian garage's bill in rupiah: thousands dots and no minor units (`Rp 224.400`),
    PPN (VAT) 11% added to the subtotal, a day-first date, cash and change."""
    parts = [("Oli Mesin Sintetik", 2, D(65000)), ("Filter Oli", 1, D(45000)), ("Busi Iridium", 4, D(18500)),
             ("Jasa Servis Berkala", 1, D(75000))]
    items = [Item(d, str(q), str(p), p * q) for d, q, p in parts]
    subtotal = sum((i.amount for i in items), D(0))
    tax = (subtotal * D("0.11")).quantize(D(1), ROUND_HALF_UP)
    total = subtotal + tax
    cash = ((total // 50000) + 1) * 50000
    r = Receipt(cols=38, size=25)
    r.center("BENGKEL MAJU MOTOR", "T")
    r.center("Jl. Cihampelas No. 45, Bandung")
    r.center("Telp. (022) 555-0187")
    r.center("NPWP 01.234.567.8-901.000")
    r.rule()
    r.lr("Tanggal: 12/08/2024", "Jam: 10:15")
    r.lr(f"No. Nota: 2408-{rng.randint(1000, 9999)}", "Kasir: Dedi")
    r.rule()
    for d, q, p in parts:
        if q == 1:
            r.lr(d, rupiah(p * q))
        else:
            r.lr(d, "")
            r.lr(f"  {q} x {rupiah(p)}", rupiah(p * q))
    r.rule()
    r.lr("Subtotal", f"Rp {rupiah(subtotal)}")
    r.lr("PPN 11%", f"Rp {rupiah(tax)}")
    r.lr("TOTAL", f"Rp {rupiah(total)}", "B")
    r.lr("TUNAI", f"Rp {rupiah(cash)}")
    r.lr("KEMBALI", f"Rp {rupiah(cash - total)}")
    r.rule()
    r.center("Terima kasih atas kunjungan Anda", "b")
    img = thermal(r.render(), rng)
    return img, Truth("Bengkel Maju Motor", date(2024, 8, 12), total, tax, "IDR", "Maintenance", items,
                      "12/08/2024", rupiah(total))


def scan_a4_pub(rng: random.Random):
    """A flatbed scan: an A4 page at 600 dpi (4960 x 7016 px) with a small receipt in the middle."""
    menu = [("STEAK & ALE PIE", D("16.95")), ("FISH & CHIPS", D("15.50")), ("PINT BITTER", D("4.80")),
            ("LEMONADE", D("2.90")), ("STICKY TOFFEE PUD", D("6.75"))]
    picks = [(d, rng.choice((1, 2)), p) for d, p in menu]
    items = [Item(d, str(q), num(p), m(p * q)) for d, q, p in picks]
    total = sum((i.amount for i in items), D(0))
    vat = vat_included(total, 20)
    r = Receipt(cols=38, size=64)
    r.center("THE PLOUGH INN", "T")
    r.center("The Street, Elmsted")
    r.center("Ashford, Kent TN25 5JT")
    r.center("Tel 01632 960913")
    r.center("VAT Reg 402 7736 15")
    r.rule()
    r.lr("Date 30/12/2023", "Time 20:14")
    r.lr(f"Table 7   Covers 2", f"Chk {rng.randint(100, 999)}")
    r.rule()
    for d, q, p in picks:
        r.lr(f"{q} {d}", num(m(p * q)))
    r.rule()
    r.lr("TOTAL", gbp(total), "B")
    r.lr("VISA", gbp(total))
    r.lr("Incl. VAT @ 20%", gbp(vat))
    r.rule()
    r.center("THANK YOU - SEE YOU SOON", "b")
    receipt = r.render(paper=250, ink=32).filter(ImageFilter.GaussianBlur(1.0))
    page = Image.new("L", (4960, 7016), 253)
    w, h = receipt.size
    x, y = (4960 - w) // 2, (7016 - h) // 2
    shadow = Image.new("L", page.size, 0)
    ImageDraw.Draw(shadow).rectangle((x - 4, y - 4, x + w + 10, y + h + 12), fill=90)
    shadow = shadow.filter(ImageFilter.GaussianBlur(8))
    page = Image.composite(Image.new("L", page.size, 200), page, shadow)
    page.paste(receipt, (x, y))
    return page.convert("RGB"), Truth("The Plough Inn", date(2023, 12, 30), total, vat, "GBP", "Other", items,
                                      "30/12/2023", num(total))


def exif_autospares(rng: random.Random):
    """Drawn upright; saved turned 90 degrees with EXIF Orientation 6 (a correct reader shows it upright)."""
    lines = [("SCREENWASH -20C 5L", 1, D("6.49")), ("H7 HEADLAMP BULB", 2, D("7.99")),
             ("WIPER BLADE 18IN", 1, D(rng.choice(("9.99", "11.49")))), ("ENGINE OIL 5W30 1L", 1, D("12.99"))]
    items, total = priced(lines)
    vat = vat_included(total, 20)
    r = Receipt(cols=38, size=25)
    r.center("NORTHGATE AUTOSPARES", "T")
    r.center("88 Northgate, Wakefield WF1 3BJ")
    r.center("Tel 01924 496 0377")
    r.center("VAT Reg GB 390 5521 08")
    r.rule()
    r.lr("08 Sep 2024", "10:03")
    r.lr(f"Sale {rng.randint(10000, 99999)}", "Till 2")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.lr(d, num(it.amount))
        if q > 1:
            r.text(f"  {q} x {num(p)}", "s")
    r.rule()
    r.lr("TOTAL", gbp(total), "B")
    r.lr("CARD", gbp(total))
    r.lr("VAT @ 20% included", gbp(vat))
    r.rule()
    r.center("THANK YOU", "b")
    img = thermal(r.render(), rng)
    return img, Truth("Northgate Autospares", date(2024, 9, 8), total, vat, "GBP", "Maintenance", items,
                      "08 Sep 2024", num(total))


# ----------------------------------------------------------------------------------------------
# The driver's receipts of Europe and the US (issue 46): VAT tables with several rates, rates
# printed without a percent sign, tax "of which" included, tax added on part of a bill, app
# receipts for parking and charging, an insurer's schedule, garage invoices with parts and labour.


def de_fuel_two_rates(rng: random.Random):
    """A phone photo of a German fuel receipt: litres x price on one row, shop items at 19% and
    7%, a VAT table with a row per rate and a sum row, the date at the foot with a two-digit year."""
    price = D("1.799")
    litres = (D(rng.randint(2200, 3400)) / 100).quantize(CENT)
    fuel = m(litres * price)
    items = [Item("Saeule 5 Super E5", str(litres), "1.799", fuel), Item("Scheibenreiniger 1l", "1", "4.99", D("4.99")),
             Item("Laugenbrezel", "2", "1.29", D("2.58"))]
    gross_a = fuel + D("4.99")
    gross_b = D("2.58")
    vat_a, vat_b = vat_included(gross_a, 19), vat_included(gross_b, 7)
    total = gross_a + gross_b
    r = Receipt(cols=40, size=27)
    r.center("STERNKREUZ TANKSTELLE", "T")
    r.center("Koelner Strasse 118")
    r.center("50859 Koeln-Lövenich")
    r.center("Tel. 0221 555 0198")
    r.center("St.-Nr. 217/5123/0456")
    r.rule()
    r.text("Saeule 5  Super E5")
    r.row([(f"  {eu(litres)} l x {eu(price, 3)} EUR/l", 0, "l"), (f"{eu(fuel)} A", 40, "r")])
    r.row([("Scheibenreiniger 1l", 0, "l"), ("4,99 A", 40, "r")])
    r.row([("2 x 1,29 Laugenbrezel", 0, "l"), ("2,58 B", 40, "r")])
    r.rule()
    r.lr("SUMME EUR", eu(total), "B")
    r.lr("girocard", eu(total))
    r.rule()
    r.row([("MwSt-Satz", 0, "l"), ("Netto", 22, "r"), ("MwSt", 30, "r"), ("Brutto", 40, "r")], "s")
    r.row([("A 19,0%", 0, "l"), (eu(gross_a - vat_a), 22, "r"), (eu(vat_a), 30, "r"), (eu(gross_a), 40, "r")], "s")
    r.row([("B  7,0%", 0, "l"), (eu(gross_b - vat_b), 22, "r"), (eu(vat_b), 30, "r"), (eu(gross_b), 40, "r")], "s")
    r.row([("Summe", 0, "l"), (eu(total - vat_a - vat_b), 22, "r"), (eu(vat_a + vat_b), 30, "r"), (eu(total), 40, "r")], "s")
    r.rule()
    r.lr(f"14.03.25  07:52", f"Bon {rng.randint(1000, 9999)}  Kasse 2")
    r.center("Vielen Dank und gute Fahrt!", "b")
    photo = photograph(r.render(paper=247, ink=30), rng, angle=-2.5, persp=0.025, sigma=6.0, dark=0.3, blur=0.6,
                       bg=(70, 66, 60))
    return photo, Truth("Sternkreuz Tankstelle", date(2025, 3, 14), total, vat_a + vat_b, "EUR", "Fuel", items,
                        "14.03.25", eu(total))


def nl_ev_charging(rng: random.Random):
    """A charging app's receipt (a screenshot): kWh x price a kWh, a start fee, the subtotal
    excluding VAT, BTW 21% and the total including it, dates day-month-year with hyphens."""
    kwh = (D(rng.randint(24000, 41000)) / 1000).quantize(D("0.001"))
    rate = D("0.59")
    energy = m(kwh * rate)
    start = D("0.35")
    total = energy + start
    vat = vat_included(total, 21)
    r = Receipt(cols=40, size=28, family="sans", margin=2.0)
    r.text("Voltpad", "T")
    r.text("Laadbewijs", "H")
    r.text("Voltpad B.V., Keizersgracht 201, 1016 DT Amsterdam", "s")
    r.text("KvK 81234567  BTW NL862417305B01", "s")
    r.space(0.6)
    r.lr("Laadsessie", f"#{rng.randint(10**7, 10**8 - 1)}")
    r.lr("Locatie", "P+R Zuid, laadpunt 4")
    r.lr("Start", "14-03-2025 18:02")
    r.lr("Einde", "14-03-2025 19:47")
    r.lr("Geladen", f"{eu(kwh, 3)} kWh")
    r.rule()
    r.lr(f"Energie {eu(kwh, 3)} kWh x € 0,59", f"€ {eu(energy)}")
    r.lr("Starttarief", f"€ {eu(start)}")
    r.rule()
    r.lr("Subtotaal excl. btw", f"€ {eu(total - vat)}")
    r.lr("Btw 21%", f"€ {eu(vat)}")
    r.lr("Totaal incl. btw", f"€ {eu(total)}", "B")
    r.space(0.6)
    r.text(f"Betaald met Mastercard **** {card_digits(rng)}", "s")
    r.text("Bedankt voor het laden bij Voltpad.", "s")
    img = r.render(paper=255, ink=24)
    items = [Item(f"Energie {eu(kwh, 3)} kWh", str(kwh), "0.59", energy), Item("Starttarief", "1", "0.35", start)]
    return img, Truth("Voltpad", date(2025, 3, 14), total, vat, "EUR", "Fuel", items, "14-03-2025", eu(total))


def uk_parking_app(rng: random.Random):
    """A parking app's e-receipt (a screenshot): the parking charge and a convenience fee, a VAT
    summary with a row for each and a VAT total, times with weekday and month name."""
    parking, fee = D("4.50"), D("0.20")
    total = parking + fee
    vat_p, vat_f = vat_included(parking, 20), vat_included(fee, 20)
    r = Receipt(cols=40, size=28, family="sans", margin=2.0)
    r.text("Parkwise", "T")
    r.text("Payment receipt", "H")
    r.text("Parkwise Ltd, 20 Wellington Place, Leeds LS1 4AP", "s")
    r.text("VAT Reg No GB 391 4420 87", "s")
    r.space(0.6)
    r.lr("Location", "8214 Station Road, Ilkley")
    r.lr("Vehicle", "YK19 FPT")
    r.lr("Start", "Tue 11 Mar 2025 09:14")
    r.lr("End", "Tue 11 Mar 2025 12:14")
    r.lr("Duration", "3 hours")
    r.rule()
    r.lr("Parking", gbp(parking))
    r.lr("Convenience fee", gbp(fee))
    r.lr("Total charged", gbp(total), "B")
    r.rule()
    r.text("VAT summary", "b")
    r.lr("Parking (VAT @ 20%)", gbp(vat_p))
    r.lr("Convenience fee (VAT @ 20%)", gbp(vat_f))
    r.lr("Total VAT", gbp(vat_p + vat_f))
    r.space(0.6)
    r.text(f"Paid by Visa ending {card_digits(rng)}", "s")
    r.text("Keep this receipt for your records.", "s")
    img = r.render(paper=255, ink=20)
    items = [Item("Parking", "1", "4.50", parking), Item("Convenience fee", "1", "0.20", fee)]
    return img, Truth("Parkwise", date(2025, 3, 11), total, vat_p + vat_f, "GBP", "Other", items,
                      "11 Mar 2025", num(total))


def uk_insurance_schedule(rng: random.Random):
    """A motor insurer's schedule, scanned: the period of insurance and the date of issue, excesses
    and a no-claims discount beside the premium, and a premium including IPT whose tax is stated in
    a sentence under it."""
    net = D(rng.randint(45000, 62000)) / 100
    ipt = m(net * D("0.12"))
    total = net + ipt
    r = Receipt(cols=50, size=24, family="sans", margin=3.0)
    r.text("Oakmere Insurance", "T")
    r.text("Oakmere Insurance Services Ltd, 4 Temple Row, Birmingham B2 5HG", "s")
    r.text("Tel 0121 496 0733   www.oakmere-insurance.co.uk", "s")
    r.space(0.8)
    r.text("MOTOR INSURANCE SCHEDULE", "H")
    r.space(0.4)
    r.lr("Policyholder", "Ms A Khan")
    r.lr("Policy number", f"OMI/{rng.randint(100000, 999999)}/25")
    r.lr("Vehicle", "Ford Focus 1.0  KM21 VXA")
    r.lr("Cover", "Comprehensive")
    r.lr("Period of insurance", "14/04/2025 to 13/04/2026")
    r.lr("Date of issue", "02/04/2025")
    r.lr("No claims discount", "5 years")
    r.lr("Compulsory excess", gbp(D("250.00")))
    r.lr("Voluntary excess", gbp(D("100.00")))
    r.space(0.4)
    r.rule()
    r.lr("Total premium (including IPT)", gbp(total), "b")
    r.text(f"This premium includes Insurance Premium Tax of {gbp(ipt)}.", "s")
    r.lr("Paid in full by debit card", gbp(total))
    r.rule()
    r.space(0.4)
    r.text("Please read this schedule with your policy wording.", "s")
    r.text("Oakmere is authorised and regulated by the Financial Conduct Authority.", "s")
    img = thermal(r.render(paper=253, ink=22), rng, sigma=2.0, blur=0.5)
    return img, Truth("Oakmere Insurance", date(2025, 4, 2), total, ipt, "GBP", "Insurance", [], "02/04/2025",
                      f"{total:,.2f}")


def de_garage_invoice(rng: random.Random):
    """A German garage's invoice, scanned: parts and labour in a table, parts and labour
    subtotals, the net amount, "zzgl. 19% MwSt" added and the invoice amount; a first-registration
    month and an odometer reading near the invoice date."""
    lines = [("Ölfilter", D(1), D("12.90")), ("Motoröl 5W-30 (l)", D("4.5"), D("14.90")),
             ("Luftfilter", D(1), D(rng.choice(("24.50", "26.90")))), ("Arbeitslohn Inspektion (Std)", D("1.5"), D("89.00"))]
    items = [Item(d, str(q), num(p), m(q * p)) for d, q, p in lines]
    parts = sum((i.amount for i in items[:3]), D(0))
    labour = items[3].amount
    net = parts + labour
    vat = m(net * D("0.19"))
    total = net + vat
    r = Receipt(cols=50, size=24, family="sans", margin=3.0)
    r.text("Autohaus Bergmann", "T")
    r.text("Kfz-Meisterbetrieb  -  Industriestr. 14  -  70565 Stuttgart", "s")
    r.text("Tel. 0711 555 0143  -  USt-IdNr. DE 284 551 963", "s")
    r.space(0.8)
    r.text("RECHNUNG", "H")
    r.lr(f"Rechnungs-Nr. 2024-{rng.randint(1000, 9999)}", "Rechnungsdatum 04.11.2024")
    r.lr("Fahrzeug: VW Golf  S-TS 4812", "Erstzulassung 03/2017")
    r.lr("km-Stand 84.312", "Kunde 20417")
    r.rule()
    r.row([("Bezeichnung", 0, "l"), ("Menge", 28, "r"), ("Einzelpreis", 41, "r"), ("Betrag", 50, "r")], "b")
    for (d, q, p), it in zip(lines, items):
        r.row([(d, 0, "l"), (eu(q, 1) if q != 1 else "1", 28, "r"), (eu(p), 41, "r"), (eu(it.amount), 50, "r")])
    r.rule()
    r.lr("Teile", eu(parts))
    r.lr("Arbeitslohn", eu(labour))
    r.lr("Nettobetrag", eu(net))
    r.lr("zzgl. 19% MwSt", eu(vat))
    r.lr("Rechnungsbetrag EUR", eu(total), "B")
    r.rule()
    r.text("Betrag dankend per EC-Karte erhalten.", "s")
    r.text("Zahlbar sofort ohne Abzug. Es gelten unsere AGB.", "s")
    img = thermal(r.render(paper=253, ink=22), rng, sigma=2.0, blur=0.5)
    return img, Truth("Autohaus Bergmann", date(2024, 11, 4), total, vat, "EUR", "Maintenance", items,
                      "04.11.2024", eu(total))


def fr_fuel_photo(rng: random.Random):
    """A phone photo of a French fuel receipt: litres x price a litre on one row, TOTAL TTC, and a
    VAT table of rate, HT, TVA and TTC columns."""
    price = D("1.689")
    litres = (D(rng.randint(3000, 4800)) / 100).quantize(CENT)
    total = m(litres * price)
    vat = vat_included(total, 20)
    r = Receipt(cols=36, size=27)
    r.center("STATION DES TILLEULS", "T")
    r.center("Route de Paris")
    r.center("45000 Orleans")
    r.center("Tel 02 38 55 01 72")
    r.center("SIRET 523 118 447 00021")
    r.rule()
    r.lr("le 08/03/2025 a 07:41", f"Ticket {rng.randint(1000, 9999)}")
    r.text("Pompe 6  GAZOLE")
    r.lr(f" {eu(litres)} L x {eu(price, 3)}", f"{eu(total)} EUR")
    r.rule()
    r.lr("TOTAL TTC", f"{eu(total)} EUR", "B")
    r.lr("CB SANS CONTACT", f"{eu(total)} EUR")
    r.rule()
    r.row([("Taux", 0, "l"), ("HT", 18, "r"), ("TVA", 27, "r"), ("TTC", 36, "r")], "s")
    r.row([("20,00%", 0, "l"), (eu(total - vat), 18, "r"), (eu(vat), 27, "r"), (eu(total), 36, "r")], "s")
    r.rule()
    r.center("MERCI ET BONNE ROUTE", "b")
    photo = photograph(r.render(paper=246, ink=30), rng, angle=3.0, persp=0.03, sigma=7.0, dark=0.35, blur=0.6,
                       bg=(58, 62, 70))
    return photo, Truth("Station des Tilleuls", date(2025, 3, 8), total, vat, "EUR", "Fuel",
                        [Item("Pompe 6 GAZOLE", str(litres), "1.689", total)], "08/03/2025", eu(total))


def es_fuel(rng: random.Random):
    """A Spanish fuel station's simplified invoice: litres and price a litre on one row, and a tax
    table whose rate is printed as a number under a %IVA heading (no % beside it)."""
    price = D("1.529")
    litres = (D(rng.randint(3000, 4500)) / 100).quantize(CENT)
    total = m(litres * price)
    vat = vat_included(total, 21)
    r = Receipt(cols=38, size=26)
    r.center("ESTACION EL PINAR", "T")
    r.center("Ctra. N-VI km 24")
    r.center("28230 Las Rozas (Madrid)")
    r.center("CIF B-84123456")
    r.center("FACTURA SIMPLIFICADA", "b")
    r.rule()
    r.lr("Fecha: 15/01/2025", "Hora: 19:22")
    r.lr(f"N. {rng.randint(100000, 999999)}", "Surtidor 3")
    r.rule()
    r.row([("PRODUCTO", 0, "l"), ("LITROS", 20, "r"), ("PRECIO", 28, "r"), ("IMPORTE", 38, "r")], "b")
    r.row([("Gasoleo A", 0, "l"), (eu(litres), 20, "r"), (eu(price, 3), 28, "r"), (eu(total), 38, "r")])
    r.rule()
    r.lr("TOTAL EUR", eu(total), "B")
    r.lr("TARJETA", eu(total))
    r.rule()
    r.row([("BASE IMP.", 0, "l"), ("%IVA", 17, "r"), ("CUOTA", 27, "r"), ("TOTAL", 38, "r")], "s")
    r.row([(eu(total - vat), 9, "r"), ("21,00", 17, "r"), (eu(vat), 27, "r"), (eu(total), 38, "r")], "s")
    r.rule()
    r.center("GRACIAS POR SU VISITA", "b")
    img = thermal(r.render(paper=250, ink=30), rng)
    return img, Truth("Estacion El Pinar", date(2025, 1, 15), total, vat, "EUR", "Fuel",
                      [Item("Gasoleo A", str(litres), "1.529", total)], "15/01/2025", eu(total))


def it_fuel_photo(rng: random.Random):
    """A phone photo of an Italian fuel station's "documento commerciale": the VAT rate in an IVA
    column beside the price, "di cui IVA" under the total, a VAT number labelled P.IVA, and the date
    at the foot, day-month-year with hyphens."""
    price = D("1.689")
    litres = (D(rng.randint(2600, 3800)) / 100).quantize(CENT)
    total = m(litres * price)
    vat = vat_included(total, 22)
    r = Receipt(cols=38, size=27)
    r.center("STAZIONE SAN ROCCO", "T")
    r.center("Via Emilia 212, 40026 Imola (BO)")
    r.center("P.IVA 03124560372")
    r.space(0.3)
    r.center("DOCUMENTO COMMERCIALE", "b")
    r.center("di vendita o prestazione")
    r.rule()
    r.row([("DESCRIZIONE", 0, "l"), ("IVA", 27, "r"), ("Prezzo(€)", 38, "r")], "s")
    r.row([("GASOLIO SELF P.4", 0, "l"), ("22%", 27, "r"), (eu(total), 38, "r")])
    r.text(f"  lt {eu(litres)} x {eu(price, 3)}", "s")
    r.rule()
    r.lr("TOTALE COMPLESSIVO", eu(total), "B")
    r.lr("di cui IVA", eu(vat))
    r.lr("Pagamento elettronico", eu(total))
    r.lr("Importo pagato", eu(total))
    r.rule()
    r.lr("12-03-2025 08:15", f"DOC.N. 0412-{rng.randint(1000, 9999)}")
    r.center("GRAZIE E ARRIVEDERCI", "b")
    photo = photograph(r.render(paper=247, ink=30), rng, angle=-1.5, persp=0.02, sigma=5.0, dark=0.25, blur=0.5,
                       bg=(84, 76, 66))
    return photo, Truth("Stazione San Rocco", date(2025, 3, 12), total, vat, "EUR", "Fuel",
                        [Item("GASOLIO SELF P.4", str(litres), "1.689", total)], "12-03-2025", eu(total))


def us_repair_order(rng: random.Random):
    """A US repair shop's invoice: parts and labor, shop supplies, sales tax on the parts alone
    (its rate does not give it from the subtotal), the vehicle's model year and odometer."""
    pads = D(rng.choice(("64.99", "69.99")))
    lines = [("BRAKE PADS FRONT (SET)", D(1), pads), ("BRAKE ROTOR FRONT", D(2), D("38.75")),
             ("LABOR FRONT BRAKES (HR)", D("1.8"), D("120.00")), ("SHOP SUPPLIES", D(1), D("12.00"))]
    items = [Item(d, str(q), num(p), m(q * p)) for d, q, p in lines]
    parts = items[0].amount + items[1].amount
    subtotal = sum((i.amount for i in items), D(0))
    tax = m(parts * D("0.075"))
    total = subtotal + tax
    r = Receipt(cols=42, size=25)
    r.center("CEDAR VALLEY AUTO REPAIR", "T")
    r.center("845 N Broadway")
    r.center("Wichita, KS 67214")
    r.center("(316) 555-0162")
    r.rule()
    r.lr(f"INVOICE {rng.randint(20000, 29999)}", "DATE 10/28/2024")
    r.lr("2017 HONDA ACCORD", "ODOMETER 84,312")
    r.rule()
    r.row([("DESCRIPTION", 0, "l"), ("QTY", 28, "r"), ("PRICE", 35, "r"), ("AMOUNT", 42, "r")], "b")
    for (d, q, p), it in zip(lines, items):
        r.row([(d, 0, "l"), (str(q), 28, "r"), (num(p), 35, "r"), (num(it.amount), 42, "r")])
    r.rule()
    r.lr("PARTS", num(parts))
    r.lr("LABOR", num(items[2].amount))
    r.lr("SHOP SUPPLIES", num(items[3].amount))
    r.lr("SUBTOTAL", num(subtotal))
    r.lr("SALES TAX 7.5% ON PARTS", num(tax))
    r.lr("TOTAL", usd(total), "B")
    r.lr("VISA", usd(total))
    r.rule()
    r.center("12 MONTH / 12,000 MILE WARRANTY", "s")
    r.center("THANK YOU FOR YOUR BUSINESS", "b")
    img = thermal(r.render(), rng)
    return img, Truth("Cedar Valley Auto Repair", date(2024, 10, 28), total, tax, "USD", "Maintenance", items,
                      "10/28/2024", num(total))


def us_gas_store_photo(rng: random.Random):
    """A phone photo of a US gas station's receipt: gallons x price on one row, store items marked
    taxable, and sales tax at a rate charged on the taxable items alone."""
    price = D("3.199")
    gallons = (D(rng.randint(8000, 13000)) / 1000).quantize(D("0.001"))
    fuel = m(gallons * price)
    store = [("COFFEE 20OZ", D("2.49")), ("BEEF JERKY", D("5.99"))]
    items = [Item("UNLEADED", str(gallons), "3.199", fuel)] + [Item(d, "1", num(p), p) for d, p in store]
    taxable = sum((p for _, p in store), D(0))
    subtotal = fuel + taxable
    tax = m(taxable * D("0.07"))
    total = subtotal + tax
    r = Receipt(cols=34, size=27)
    r.center("PRAIRIE STOP", "T")
    r.center("1801 S Main St")
    r.center("Ames, IA 50010")
    r.center("(515) 555-0138")
    r.rule()
    r.lr("02/21/2025", "7:18 AM")
    r.lr(f"TRAN# {rng.randint(100000, 999999)}", "PUMP# 7")
    r.rule()
    r.lr("UNLEADED", "")
    r.lr(f" {gallons} G @ $3.199/G", num(fuel))
    for d, p in store:
        r.lr(d, f"{num(p)} T")
    r.rule()
    r.lr("SUBTOTAL", num(subtotal))
    r.lr("TAX 7.000%", num(tax))
    r.lr("TOTAL", usd(total), "B")
    r.lr("MASTERCARD", usd(total))
    r.rule()
    r.center("THANK YOU - COME AGAIN", "b")
    photo = photograph(r.render(paper=247, ink=30), rng, angle=2.0, persp=0.02, sigma=5.0, dark=0.3, blur=0.5,
                       bg=(92, 86, 78))
    return photo, Truth("Prairie Stop", date(2025, 2, 21), total, tax, "USD", "Fuel", items, "02/21/2025", num(total))


def uk_ev_charging(rng: random.Random):
    """A UK charging hub's e-receipt (a screenshot): kWh at a price a kWh, an overstay fee of
    nothing, and the VAT named on the total's own row ("incl. VAT £5.06"), an ISO date."""
    kwh = (D(rng.randint(30000, 45000)) / 1000).quantize(D("0.001"))
    rate = D("0.79")
    energy = m(kwh * rate)
    total = energy
    vat = vat_included(total, 20)
    r = Receipt(cols=40, size=28, family="sans", margin=2.0)
    r.text("Chargeway", "T")
    r.text("Charging receipt", "H")
    r.text("Chargeway Ltd, 9 Kings Road, Reading RG1 3AR", "s")
    r.text("VAT No 277 4108 31", "s")
    r.space(0.6)
    r.lr("Session", f"CW-{rng.randint(10**6, 10**7 - 1)}")
    r.lr("Site", "Thorpe Park Hub, bay 6")
    r.lr("Started", "2025-01-26 13:05")
    r.lr("Ended", "2025-01-26 13:49")
    r.rule()
    r.lr(f"Energy {kwh} kWh @ £0.79/kWh", gbp(energy))
    r.lr("Overstay fee", gbp(D(0)))
    r.rule()
    r.lr(f"Total {gbp(total)}", f"incl. VAT {gbp(vat)}", "B")
    r.space(0.6)
    r.text(f"Charged to Amex ending {card_digits(rng)}", "s")
    r.text("Thank you for charging with Chargeway.", "s")
    img = r.render(paper=255, ink=22)
    return img, Truth("Chargeway", date(2025, 1, 26), total, vat, "GBP", "Fuel",
                      [Item(f"Energy {kwh} kWh", str(kwh), "0.79", energy), Item("Overstay fee", "1", "0.00", D("0.00"))],
                      "2025-01-26", num(total))


def uk_garage_vat_analysis(rng: random.Random):
    """A UK garage's invoice: each line with a VAT code, the MOT outside the scope of VAT, a net
    total and the invoice total, then a VAT analysis whose first row is the 0% one (no VAT row
    among the totals)."""
    pads = D(rng.choice(("38.40", "41.60")))
    lines = [("O", "MOT test (class 4)", D(1), D("54.85")), ("S", "Front brake pads", D(1), pads),
             ("S", "Brake fluid 1L", D(1), D("9.90")), ("S", "Labour (hrs)", D("0.75"), D("60.00"))]
    items = [Item(d, str(q), num(p), m(q * p)) for _, d, q, p in lines]
    net = sum((i.amount for i in items), D(0))
    outside = items[0].amount
    standard = net - outside
    vat = m(standard * D("0.20"))
    total = net + vat
    r = Receipt(cols=44, size=25)
    r.center("HILLCREST AUTOCENTRE", "T")
    r.center("MOT - Servicing - Tyres - Repairs")
    r.center("22 Ferry Lane, Norwich NR1 1SW")
    r.center("Tel 01603 496 0218")
    r.center("VAT Reg GB 566 2031 47")
    r.rule("=")
    r.lr(f"INVOICE {rng.randint(10000, 19999)}", "Date 17 Feb 2025")
    r.lr("Reg NJ68 WKT  Vauxhall Corsa", "Miles 61,408")
    r.rule()
    r.row([("C", 0, "l"), ("Description", 2, "l"), ("Qty", 28, "r"), ("Unit", 36, "r"), ("Net", 44, "r")], "b")
    for (c, d, q, p), it in zip(lines, items):
        r.row([(c, 0, "l"), (d, 2, "l"), (str(q), 28, "r"), (num(p), 36, "r"), (num(it.amount), 44, "r")])
    r.rule()
    r.lr("Net total", num(net))
    r.lr("Invoice total", gbp(total), "B")
    r.lr("Paid by Visa", gbp(total))
    r.rule()
    r.text("VAT analysis", "b")
    r.row([("Code", 0, "l"), ("Rate", 14, "r"), ("Net", 30, "r"), ("VAT", 44, "r")], "s")
    r.row([("O", 0, "l"), ("0.00%", 14, "r"), (num(outside), 30, "r"), ("0.00", 44, "r")], "s")
    r.row([("S", 0, "l"), ("20.00%", 14, "r"), (num(standard), 30, "r"), (num(vat), 44, "r")], "s")
    r.rule()
    r.text("O = outside the scope of VAT (MOT test fee)", "s")
    r.center("THANK YOU FOR YOUR CUSTOM", "b")
    img = thermal(r.render(paper=251), rng)
    return img, Truth("Hillcrest Autocentre", date(2025, 2, 17), total, vat, "GBP", "Maintenance", items,
                      "17 Feb 2025", num(total))


# ----------------------------------------------------------------------------------------------
# Documents that are not till receipts (issue 58): insurers' payment confirmations, the DVLA's and
# councils' letters and e-mails, garage and parts invoices, parking apps, a fuel card's statement.
# Each prints an addressee beside its sender, and most an amount for a period (an annual premium, a
# balance brought forward) beside what is paid now.


def letter(cols: int = 56, size: int = 22) -> Receipt:
    return Receipt(cols=cols, size=size, family="sans", margin=3.0)


def email_head(r: Receipt, sender: str, to: str, subject: str, sent: str) -> None:
    r.text(f"From: {sender}", "s")
    r.text(f"To: {to}", "s")
    r.text(f"Sent: {sent}", "s")
    r.text(f"Subject: {subject}", "b")
    r.rule("_")
    r.space(0.4)


def uk_insurer_deposit_letter(rng: random.Random):
    """An insurer's letter confirming a deposit: the letterhead, the addressee's block under it,
    the annual premium, the deposit paid today and the monthly instalments to come, and "… is a
    trading name of …" at the foot."""
    premium, deposit = D("3458.64"), D("518.80")
    monthly = m((premium - deposit) / 10)
    r = letter()
    r.text("Larkfield Direct", "T")
    r.text("PO Box 418, Bexhill-on-Sea TN39 3LW   Tel 0330 019 4471", "s")
    r.space(0.8)
    r.text("Mr Arjun Kowalski")
    r.text("14 Elm Grove")
    r.text("Leicester")
    r.text("LE2 3FD")
    r.space(0.6)
    r.text("12 March 2025")
    r.text(f"Policy number  LKD/{rng.randint(1000000, 9999999)}")
    r.space(0.4)
    r.text("Dear Mr Kowalski,")
    r.text("Thank you for your payment. Your car insurance is now in place.")
    r.space(0.4)
    r.lr("Annual premium", gbp(premium))
    r.lr("Deposit paid today", gbp(deposit), "b")
    r.lr("10 monthly instalments of", gbp(monthly))
    r.space(0.4)
    r.text("Your premium includes Insurance Premium Tax at the current rate.", "s")
    r.text("Yours sincerely,")
    r.text("Customer Services")
    r.space(0.6)
    r.text("Larkfield Direct is a trading name of Larkfield Insurance Company Limited.", "s")
    r.text("Registered in England No. 04127791.", "s")
    img = thermal(r.render(paper=254, ink=22), rng, sigma=1.5, blur=0.4)
    items = [Item("Deposit paid today", "1", num(deposit), deposit)]
    return img, Truth("Larkfield Direct", date(2025, 3, 12), deposit, None, "GBP", "Insurance", items,
                      "12 March 2025", num(deposit))


def uk_insurer_payment_email(rng: random.Random):
    """An insurer's e-mail confirming a monthly instalment: the From, To and Subject rows, the
    annual premium and the balance left beside the amount paid today."""
    premium, paid = D("1240.08"), D("103.34")
    r = letter(cols=58, size=22)
    email_head(r, "Wrenfield Insurance <payments@wrenfield-insurance.co.uk>", "jo.okafor@example.com",
               "Your payment has been received", "Tue 03/06/2025 10:14")
    r.text("Wrenfield Insurance", "H")
    r.text("Dear Ms Okafor,")
    r.text("We have received your monthly payment for your motor policy.")
    r.space(0.4)
    r.lr("Policy number", f"WMP-{rng.randint(100000, 999999)}")
    r.lr("Payment date", "3 June 2025")
    r.lr("Annual premium", gbp(premium))
    r.lr("Instalment paid", gbp(paid), "b")
    r.lr("Remaining balance", gbp(premium - paid * 2))
    r.space(0.4)
    r.text("Kind regards,")
    r.text("The Wrenfield payments team")
    r.text("Wrenfield Insurance is a trading name of Wrenfield Underwriting Ltd.", "s")
    img = r.render(paper=255, ink=24)
    items = [Item("Instalment paid", "1", num(paid), paid)]
    return img, Truth("Wrenfield Insurance", date(2025, 6, 3), paid, None, "GBP", "Insurance", items,
                      "3 June 2025", num(paid))


def uk_insurer_renewal_paid(rng: random.Random):
    """An insurer's renewal confirmation printed as a letter with the addressee at the top left and
    the insurer's letterhead under it, the premium paid in full with its IPT."""
    net = D(rng.randint(52000, 68000)) / 100
    ipt = m(net * D("0.12"))
    total = net + ipt
    r = letter(cols=54, size=23)
    r.text("Ms Helen Brackley")
    r.text("3 Saxon Close")
    r.text("Ipswich IP4 2RT")
    r.space(0.6)
    r.text("Ashcombe Motor Insurance", "T")
    r.text("Ashcombe House, 60 Princes Street, Ipswich IP1 1RJ", "s")
    r.space(0.6)
    r.text("Renewal payment confirmation", "H")
    r.lr("Date", "19/05/2025")
    r.lr("Vehicle", "Kia Ceed  AF70 PLX")
    r.lr("Premium", gbp(net))
    r.lr("Insurance Premium Tax", gbp(ipt))
    r.lr("Total paid", gbp(total), "B")
    r.space(0.4)
    r.text("Paid in full by debit card. No further payments are due.", "s")
    img = thermal(r.render(paper=253, ink=22), rng, sigma=2.0, blur=0.5)
    return img, Truth("Ashcombe Motor Insurance", date(2025, 5, 19), total, ipt, "GBP", "Insurance",
                      [Item("Premium", "1", num(net), net)], "19/05/2025", num(total))


def uk_dvla_email(rng: random.Random):
    """The DVLA's e-mail: vehicle tax set up, the amount taken, a reference."""
    total = D("195.00")
    r = letter(cols=58, size=22)
    email_head(r, "DVLA <vehicle.tax@notifications.dvla.gov.uk>", "s.mensah@example.com",
               "Vehicle tax confirmation", "21 January 2025 16:02")
    r.text("Vehicle tax confirmation", "H")
    r.text("Dear Samuel Mensah,")
    r.text("You have successfully taxed your vehicle.")
    r.space(0.4)
    r.lr("Vehicle registration", "LR67 DHX")
    r.lr("Tax starts", "1 February 2025")
    r.lr("Length of tax", "12 months")
    r.lr("Payment date", "21 January 2025")
    r.lr("Amount paid", gbp(total), "b")
    r.lr("Reference", f"{rng.randint(10**9, 10**10 - 1)}")
    r.space(0.4)
    r.text("Keep this e-mail as your receipt. Do not reply.", "s")
    img = r.render(paper=255, ink=20)
    return img, Truth("DVLA", date(2025, 1, 21), total, None, "GBP", "Vehicle Tax", [], "21 January 2025", num(total))


def uk_dvla_letter(rng: random.Random):
    """The DVLA's letter: the agency's name and address at the top, the keeper's block, six months'
    tax paid beside the twelve months' rate."""
    total, annual = D("107.25"), D("195.00")
    r = letter(cols=54, size=23)
    r.text("DVLA", "T")
    r.text("Driver and Vehicle Licensing Agency, Swansea SA99 1AR", "s")
    r.space(0.6)
    r.text("MRS P NWOSU")
    r.text("7 ASHBY ROAD")
    r.text("DERBY")
    r.text("DE1 2GH")
    r.space(0.6)
    r.text("Vehicle tax receipt", "H")
    r.lr("Date of issue", "08/04/2025")
    r.lr("Registration number", "DE19 KTV")
    r.lr("Period", "6 months from 1 April 2025")
    r.lr("Annual rate", gbp(annual))
    r.lr("Amount paid", gbp(total), "B")
    r.space(0.4)
    r.text("Vehicle tax is not subject to VAT.", "s")
    img = thermal(r.render(paper=254, ink=18), rng, sigma=1.5, blur=0.4)
    return img, Truth("DVLA", date(2025, 4, 8), total, None, "GBP", "Vehicle Tax", [], "08/04/2025", num(total))


def uk_council_pcn_receipt(rng: random.Random):
    """A council's receipt for a penalty charge paid at the discount: the penalty, the discounted
    amount and the amount paid, the addressee's block."""
    penalty, paid = D("70.00"), D("35.00")
    r = letter(cols=54, size=23)
    r.text("Leighton Borough Council", "T")
    r.text("Parking Services, Civic Offices, Leighton LT3 9ZA", "s")
    r.space(0.6)
    r.text("Mr D Hughes")
    r.text("41 Mill Street")
    r.text("Leighton LT2 7QF")
    r.space(0.6)
    r.text("Penalty Charge Notice - payment receipt", "H")
    r.lr("PCN number", f"LB{rng.randint(10000000, 99999999)}")
    r.lr("Vehicle", "LT66 ZRM")
    r.lr("Payment received on", "27 Feb 2025")
    r.lr("Penalty charge", gbp(penalty))
    r.lr("Reduced if paid within 14 days", gbp(paid))
    r.lr("Amount paid", gbp(paid), "B")
    r.space(0.4)
    r.text("This penalty charge is now closed. No VAT is charged.", "s")
    img = r.render(paper=255, ink=22)
    return img, Truth("Leighton Borough Council", date(2025, 2, 27), paid, None, "GBP", "Other", [], "27 Feb 2025", num(paid))


def uk_council_permit_email(rng: random.Random):
    """A council's e-mail for a resident's parking permit."""
    total = D("65.00")
    r = letter(cols=58, size=22)
    email_head(r, "Ashdown District Council <parking@ashdown.gov.uk>", "priya.r@example.com",
               "Your resident parking permit", "14/07/2025 09:31")
    r.text("Dear Mrs Raman,")
    r.text("Thank you for applying for a resident parking permit.")
    r.space(0.4)
    r.lr("Permit zone", "Zone C - Orchard Road")
    r.lr("Vehicle", "KY20 OPD")
    r.lr("Valid", "15/07/2025 to 14/07/2026")
    r.lr("Amount charged", gbp(total), "b")
    r.lr("Paid by", "Visa debit")
    r.space(0.4)
    r.text("Yours sincerely,")
    r.text("Parking Services")
    img = r.render(paper=255, ink=24)
    return img, Truth("Ashdown District Council", date(2025, 7, 14), total, None, "GBP", "Other", [], "14/07/2025", num(total))


def uk_garage_invoice_customer(rng: random.Random):
    """A garage's A4-style invoice: the customer's block above the garage's name, parts and labour,
    the net, the VAT and the total (net 229.46, VAT 45.89, total 275.35), the garage's trading name
    at the foot."""
    lines = [("Front brake discs (pair)", D(1), D("96.40")), ("Front brake pads", D(1), D("48.06")), ("Labour (hrs)", D("1.25"), D("68.00"))]
    items = [Item(d, str(q), num(p), m(q * p)) for d, q, p in lines]
    net = sum((i.amount for i in items), D(0))
    vat = m(net * D("0.20"))
    total = net + vat
    r = letter(cols=54, size=23)
    r.text("Invoice to:", "b")
    r.text("Mr S Patel")
    r.text("22 Lenton Boulevard")
    r.text("Nottingham NG7 2BY")
    r.space(0.6)
    r.text("Fernside Garage", "T")
    r.text("Unit 4, Trent Works, Nottingham NG2 3HQ   VAT Reg GB 238 5521 09", "s")
    r.space(0.4)
    r.lr(f"INVOICE {rng.randint(20000, 29999)}", "Date 09/01/2025", "b")
    r.lr("Vehicle Ford Fiesta  NG16 RKO", "Mileage 71,226")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.row([(d, 0, "l"), (str(q), 36, "r"), (num(it.amount), 54, "r")])
    r.rule()
    r.lr("Net", gbp(net))
    r.lr("VAT 20%", gbp(vat))
    r.lr("Invoice total", gbp(total), "B")
    r.space(0.4)
    r.text("Paid with thanks by card.", "s")
    r.text("Fernside Garage is a trading name of R & K Fern Ltd, registered in England 07733120.", "s")
    img = thermal(r.render(paper=253, ink=22), rng, sigma=2.0, blur=0.5)
    return img, Truth("Fernside Garage", date(2025, 1, 9), total, vat, "GBP", "Maintenance", items, "09/01/2025", num(total))


def uk_tyre_invoice(rng: random.Random):
    """A tyre fitter's invoice: two tyres fitted, a VAT line of its own and a summary row of rate,
    net, VAT and gross (83.83 with 13.97 of VAT)."""
    lines = [("Tyre 195/65 R15 91H", D(2), D("29.43")), ("Fitting and balancing", D(2), D("5.50"))]
    items = [Item(d, str(q), num(p), m(q * p)) for d, q, p in lines]
    net = sum((i.amount for i in items), D(0))
    vat = m(net * D("0.20"))
    total = net + vat
    r = Receipt(cols=42, size=25)
    r.center("QUICKGRIP TYRES", "T")
    r.center("88 London Road, Reading RG1 5AP")
    r.center("VAT No GB 302 7718 44")
    r.rule("=")
    r.lr(f"Invoice {rng.randint(3000, 3999)}", "11/11/2024")
    r.text("Customer: Mr T Adeyemi")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.lr(f"{q} x {d}", num(it.amount))
    r.rule()
    r.lr("Goods", num(net))
    r.lr("VAT", num(vat))
    r.lr("TOTAL", gbp(total), "B")
    r.rule()
    r.row([("Rate", 0, "l"), ("Net", 18, "r"), ("VAT", 29, "r"), ("Gross", 42, "r")], "s")
    r.row([("20%", 0, "l"), (num(net), 18, "r"), (num(vat), 29, "r"), (num(total), 42, "r")], "s")
    r.center("Paid by card - thank you", "b")
    img = thermal(r.render(paper=251), rng)
    return img, Truth("Quickgrip Tyres", date(2024, 11, 11), total, vat, "GBP", "Maintenance", items, "11/11/2024", num(total))


def uk_parts_invoice(rng: random.Random):
    """A motor factor's parts invoice to an account customer: the customer's block, the goods, VAT,
    the invoice total, and the account's balance brought forward beside it."""
    lines = [("Oil filter", D(1), D("6.80")), ("Engine oil 5W-30 5L", D(1), D("32.50")), ("Wiper blades (pair)", D(1), D("14.90"))]
    items = [Item(d, str(q), num(p), m(q * p)) for d, q, p in lines]
    net = sum((i.amount for i in items), D(0))
    vat = m(net * D("0.20"))
    total = net + vat
    r = letter(cols=50, size=23)
    r.text("PARTSLINE MOTOR FACTORS", "T")
    r.text("14 Kelvin Way, Crawley RH10 9SE   VAT GB 415 9920 36", "s")
    r.space(0.5)
    r.text("Sold to:", "b")
    r.text("Mr B Okonjo")
    r.text("Account 30177")
    r.space(0.4)
    r.lr(f"Invoice PL{rng.randint(100000, 999999)}", "Date 02.12.2024")
    r.rule()
    for (d, q, p), it in zip(lines, items):
        r.lr(d, num(it.amount))
    r.rule()
    r.lr("Goods", num(net))
    r.lr("VAT @ 20%", num(vat))
    r.lr("Invoice total", gbp(total), "B")
    r.lr("Amount paid", gbp(total))
    r.space(0.3)
    r.lr("Account balance brought forward", gbp(D("412.35")))
    img = thermal(r.render(paper=252, ink=24), rng, sigma=2.0, blur=0.5)
    return img, Truth("Partsline Motor Factors", date(2024, 12, 2), total, vat, "GBP", "Maintenance", items, "02.12.2024", num(total))


def us_parking_app(rng: random.Random):
    """A US parking app's receipt (a screenshot): the parking, the city's parking tax of 25 % on
    it and the total, the app's name and the garage's."""
    parking = D("16.00")
    tax = m(parking * D("0.25"))
    total = parking + tax
    r = Receipt(cols=40, size=28, family="sans", margin=2.0)
    r.text("ParkEase", "T")
    r.text("Parking receipt", "H")
    r.text("Lot 14, Mission & 5th, San Francisco CA 94103", "s")
    r.space(0.5)
    r.lr("Date", "03/14/2025")
    r.lr("Entered", "8:02 AM")
    r.lr("Exited", "5:47 PM")
    r.rule()
    r.lr("Parking", usd(parking))
    r.lr("City parking tax (25%)", usd(tax))
    r.lr("Total", usd(total), "B")
    r.rule()
    r.text(f"Charged to Mastercard ending {card_digits(rng)}", "s")
    img = r.render(paper=255, ink=20)
    return img, Truth("ParkEase", date(2025, 3, 14), total, tax, "USD", "Other", [Item("Parking", "1", num(parking), parking)],
                      "03/14/2025", num(total))


def uk_fuel_card_statement(rng: random.Random):
    """A fuel card's monthly statement: the account holder's block, the balance brought forward and
    the payment received, the month's fuel, its VAT, and the amount due."""
    fills = [("04/03 Shell Wetherby", D("78.40")), ("13/03 BP Harrogate", D("84.15")), ("26/03 Esso Leeds", D("82.63"))]
    items = [Item(d, "1", num(a), a) for d, a in fills]
    total = sum((i.amount for i in items), D(0))
    vat = vat_included(total, 20)
    r = letter(cols=54, size=22)
    r.text("Fuelwise", "T")
    r.text("Fuelwise Card Services, PO Box 77, Leeds LS1 9FW", "s")
    r.space(0.5)
    r.text("Northern Cabs Ltd")
    r.text("5 Station Yard")
    r.text("Leeds LS11 5QR")
    r.space(0.5)
    r.text("Monthly statement", "H")
    r.lr("Statement date", "31/03/2025")
    r.lr("Account", f"FW{rng.randint(100000, 999999)}")
    r.lr("Balance brought forward", gbp(D("312.40")))
    r.lr("Payment received, thank you", "-" + gbp(D("312.40")))
    r.rule()
    for d, a in fills:
        r.lr(d, num(a))
    r.rule()
    r.lr("VAT included", gbp(vat))
    r.lr("Amount due", gbp(total), "B")
    r.text("Collected by Direct Debit on 14/04/2025.", "s")
    img = r.render(paper=255, ink=22)
    return img, Truth("Fuelwise", date(2025, 3, 31), total, vat, "GBP", "Fuel", items, "31/03/2025", num(total))


# ----------------------------------------------------------------------------------------------
# Long receipts (TestReceipts/long/): longer than a phone's photo, so photographed in two or three
# overlapping pictures, top to bottom, as people do. Each receipt is there whole (a flat scan in one
# picture, NAME.jpg) and in pictures (NAME-2-1.jpg, NAME-2-2.jpg: two; NAME-3-1.jpg …: three), each
# set beside one NAME-<n>.expected.json, the whole receipt's ground truth.


def long_receipt(rng: random.Random, shop: str, header: list[str], day: date, time: str, catalogue: list,
                 count: int, cols: int = 42) -> tuple[Image.Image, Truth]:
    """A long till receipt: `count` item rows (quantity, item, price, amount), subtotal, total,
    card, and VAT at 20% included."""
    chosen = catalogue[:]
    rng.shuffle(chosen)
    chosen = chosen[:count]
    items = []
    r = Receipt(cols=cols, size=26)
    r.center(shop.upper(), "T")
    for row in header:
        r.center(row)
    r.rule()
    printed = day.strftime("%d/%m/%Y")
    r.lr(f"{printed} {time}", f"TILL {rng.randint(1, 9)} OP {rng.randint(100, 999)}")
    r.rule()
    r.row([("QTY", 0, "l"), ("ITEM", 4, "l"), ("PRICE", 31, "r"), ("AMOUNT", cols, "r")], "b")
    for desc, p in chosen:
        q = rng.choice((1, 1, 1, 2, 3))
        price = D(p)
        amount = m(price * q)
        items.append(Item(desc, str(q), num(price), amount))
        r.row([(str(q), 0, "l"), (desc, 4, "l"), (num(price), 31, "r"), (num(amount), cols, "r")])
    total = sum((i.amount for i in items), D(0))
    vat = vat_included(total, 20)
    r.rule()
    r.lr(f"SUBTOTAL ({sum(int(i.quantity) for i in items)} ITEMS)", num(total))
    r.lr("TOTAL", gbp(total), "B")
    r.lr("VISA DEBIT", gbp(total))
    r.text(f"CARD **** **** **** {card_digits(rng)}", "s")
    r.rule()
    r.lr("VAT @ 20% INCLUDED", gbp(vat))
    r.lr("NET", gbp(total - vat))
    r.rule()
    r.center("THANK YOU FOR YOUR CUSTOM", "b")
    r.barcode(rng.randint(0, 10**9))
    img = thermal(r.render(paper=248, ink=30), rng)
    return img, Truth(shop, day, total, vat, "GBP", "Other", items, printed, num(total))


def photographed_in(receipt: Image.Image, rng: random.Random, bands: list[tuple[float, float]]) -> list[Image.Image]:
    """Phone photos of the `bands` of a long receipt (fractions of its height, overlapping), each
    a little turned and lit its own way, the later ones taken a little nearer or farther."""
    w, h = receipt.size
    photos = []
    for index, (top, bottom) in enumerate(bands):
        part = receipt.crop((0, round(top * h), w, round(bottom * h)))
        photo = photograph(part, rng, angle=rng.uniform(-0.6, 0.6), persp=0.008, sigma=5.0, dark=0.25, blur=0.5,
                           margin=0.12, vertical=0.0)
        if index:
            scale = rng.choice((0.94, 1.06))
            photo = photo.resize((round(photo.width * scale), round(photo.height * scale)), Image.Resampling.BICUBIC)
        photos.append(photo)
    return photos


HARDWARE = [("CLAW HAMMER 16OZ", "11.99"), ("WOOD SCREWS 4X40 200", "6.49"), ("MASONRY DRILL BIT 6MM", "3.25"),
            ("WALL PLUGS RED 100", "2.10"), ("DUST SHEET 3.6X2.7M", "4.99"), ("SANDPAPER ASSORTED 10", "3.79"),
            ("EXTERIOR WOOD FILLER", "7.45"), ("DECORATORS CAULK", "2.89"), ("MASKING TAPE 50M", "3.15"),
            ("PAINT ROLLER 9IN", "5.60"), ("ROLLER TRAY", "2.99"), ("BRUSH SET 5PC", "8.75"),
            ("WHITE SPIRIT 1L", "4.20"), ("CABLE TIES 100", "2.49"), ("INSULATION TAPE", "1.35"),
            ("HINGE BRASS 75MM PR", "4.40"), ("SILICONE SEALANT", "5.25"), ("TAPE MEASURE 5M", "6.99"),
            ("SPIRIT LEVEL 600MM", "9.95"), ("WORK GLOVES L", "3.49"), ("BIN BAGS 20", "2.75"),
            ("PICTURE HOOKS 20", "1.95"), ("SUPERGLUE 3G", "2.35"), ("DOOR STOP RUBBER", "1.80")]

GROCERIES = [("SEMI SKIMMED MILK 2L", "1.55"), ("WHOLEMEAL BREAD", "1.40"), ("FREE RANGE EGGS 12", "3.25"),
             ("CHEDDAR 400G", "3.60"), ("ORANGE JUICE 1L", "1.85"), ("BASMATI RICE 1KG", "2.30"),
             ("PENNE PASTA 500G", "0.95"), ("CHOPPED TOMATOES", "0.55"), ("RED ONIONS 1KG", "1.10"),
             ("CARROTS 1KG", "0.65"), ("BROCCOLI", "0.79"), ("CHICKEN THIGHS 1KG", "4.75"),
             ("GREEK YOGURT 500G", "1.99"), ("PORRIDGE OATS 1KG", "1.45"), ("PEANUT BUTTER", "2.20"),
             ("BAKED BEANS 4PK", "2.40"), ("TEABAGS 80", "2.65"), ("GROUND COFFEE 227G", "3.80"),
             ("BUTTER 250G", "2.15"), ("APPLES 6PK", "1.90"), ("BANANAS 5PK", "0.95"),
             ("SPINACH 200G", "1.20"), ("HUMMUS 200G", "1.10"), ("TORTILLA WRAPS 8", "1.35"),
             ("DARK CHOCOLATE 100G", "1.60"), ("WASHING UP LIQUID", "1.20"), ("KITCHEN ROLL 4PK", "3.50"),
             ("TOOTHPASTE 75ML", "1.75"), ("SHOWER GEL 250ML", "1.50"), ("SPARKLING WATER", "0.65")]

GARDEN = [("COMPOST 50L", "6.50"), ("TOPSOIL 25L", "3.99"), ("LAVENDER 2L POT", "7.99"), ("ROSE BUSH 3L", "12.49"),
          ("TOMATO PLANT", "2.99"), ("SEED TRAY 5PK", "3.49"), ("PLANT LABELS 50", "1.99"), ("TWINE 100M", "2.79"),
          ("GARDEN GLOVES M", "4.50"), ("HOSE CONNECTOR", "3.25"), ("SLUG PELLETS", "5.99"), ("BIRD SEED 2KG", "6.75"),
          ("TERRACOTTA POT 20CM", "4.99"), ("BAMBOO CANES 10", "3.60"), ("WEED KILLER 1L", "8.49"),
          ("LAWN FEED 2KG", "9.99"), ("SECATEURS", "11.50"), ("WATERING CAN 10L", "7.25"), ("BULBS TULIP 20", "5.49"),
          ("GRAVEL 20KG", "4.25"), ("MULCH 50L", "6.99"), ("TRELLIS 1.8M", "10.99")]


def long_hardware(rng: random.Random):
    return long_receipt(rng, "Ridgeway Hardware", ["14 Station Road, Hebden Bridge", "West Yorkshire HX7 8AB",
                                                    "Tel 01632 960377", "VAT No GB 472 9931 05"],
                        date(2025, 3, 8), "10:42", HARDWARE, 22)


def long_groceries(rng: random.Random):
    return long_receipt(rng, "Millbrook Market", ["Unit 3, Canal Wharf, Skipton", "North Yorkshire BD23 1LB",
                                                   "Tel 01632 960418", "VAT No GB 310 5528 64"],
                        date(2025, 1, 24), "18:07", GROCERIES, 28)


def long_garden(rng: random.Random):
    return long_receipt(rng, "Fernleigh Garden Centre", ["Harrogate Road, Ripley", "North Yorkshire HG3 3AY",
                                                          "Tel 01632 960592", "VAT No GB 804 2276 13"],
                        date(2024, 9, 14), "14:55", GARDEN, 20)


# name, receipt, and the sets of pictures it is photographed in (bands of its height, top to bottom)
LONG = [
    ("hardware", long_hardware, {2: [(0.0, 0.58), (0.42, 1.0)], 3: [(0.0, 0.40), (0.30, 0.72), (0.62, 1.0)]}),
    ("groceries", long_groceries, {2: [(0.0, 0.60), (0.45, 1.0)]}),
    ("garden", long_garden, {3: [(0.0, 0.42), (0.33, 0.74), (0.64, 1.0)]}),
]


def make_long(out: Path, quiet: bool) -> list[tuple[str, str]]:
    folder = out / "long"
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for name, make, sets in LONG:
        rng = random.Random(f"{SEED}:long:{name}")
        img, truth = make(rng)
        consistent(name, truth)
        truth_json = json.dumps(truth.json(), indent=2, ensure_ascii=False) + "\n"
        img.save(folder / f"{name}.jpg", "JPEG", quality=88, dpi=(203, 203))
        (folder / f"{name}.expected.json").write_text(truth_json, encoding="utf-8")
        made.append((f"long/{name}.jpg", f"{img.size[0]}x{img.size[1]}, the whole receipt in one picture"))
        for count, bands in sets.items():
            photos = photographed_in(img, random.Random(f"{SEED}:long:{name}:{count}"), bands)
            for index, photo in enumerate(photos, start=1):
                photo.save(folder / f"{name}-{count}-{index}.jpg", "JPEG", quality=86)
            (folder / f"{name}-{count}.expected.json").write_text(truth_json, encoding="utf-8")
            made.append((f"long/{name}-{count}-1..{count}.jpg",
                         f"{count} photos: " + ", ".join(f"{round(a * 100)}-{round(b * 100)} %" for a, b in bands)))
    if not quiet:
        for file, what in made:
            print(f"{file:32} {what}")
    return made


# ----------------------------------------------------------------------------------------------
# Registry: file name, generator, format, save options.


@dataclass
class Spec:
    name: str
    make: object
    kind: str
    fmt: str                      # jpeg, png, tiff, webp, bmp, gif, or jpeg-exif6
    ext: str
    opts: dict = field(default_factory=dict)


SPECS = [
    Spec("uk-fuel-unleaded", uk_fuel_unleaded, "UK fuel station, VAT included", "jpeg", "jpg", {"rgb": True, "quality": 88, "dpi": (203, 203)}),
    Spec("uk-fuel-diesel", uk_fuel_diesel, "UK fuel + shop items, cash and change", "png", "png", {"dpi": (203, 203)}),
    Spec("uk-parking", uk_parking, "UK car park, VAT included", "jpeg", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("uk-parking-ticket", uk_parking_ticket, "UK pay-and-display ticket, no VAT line", "gif", "gif", {}),
    Spec("uk-garage-mot", uk_garage_mot, "UK garage: MOT, tyres, labour; VAT added", "tiff", "tiff", {"compression": "tiff_lzw", "dpi": (203, 203)}),
    Spec("uk-insurance", uk_insurance, "UK car insurance premium receipt (IPT)", "jpeg", "jpg", {"rgb": True, "quality": 88, "dpi": (200, 200)}),
    Spec("uk-vehicle-tax", uk_vehicle_tax, "DVLA-style vehicle tax payment confirmation, no VAT", "webp", "webp", {"quality": 90, "method": 6}),
    Spec("uk-supermarket", uk_supermarket, "UK supermarket: qty/price/amount, VAT A/Z summary", "jpeg", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("us-auto-parts", us_auto_parts, "US auto parts, sales tax added, MM/DD/YYYY", "jpeg", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("us-diner", us_diner, "US restaurant, sales tax added", "jpeg", "jpg", {"rgb": True, "quality": 88, "dpi": (203, 203)}),
    Spec("de-tankstelle", de_tankstelle, "German fuel: SUMME, MwSt 19%, comma decimals", "jpeg", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("fr-garage", fr_garage, "French garage: TOTAL TTC, TVA 20%, comma decimals", "bmp", "bmp", {}),
    Spec("photo-rotated-fuel", photo_rotated_fuel, "photo: rotated, perspective, uneven light, noise", "jpeg", "jpg", {"quality": 85}),
    Spec("photo-us-gas-station", photo_us_gas_station, "photo: US fuel, gallons, no tax line", "jpeg", "jpg", {"quality": 85}),
    Spec("photo-lowres-carwash", photo_lowres_carwash, "low-resolution photo, 300 px wide, JPEG q70", "jpeg", "jpg", {"quality": 70}),
    Spec("scan-a4-pub", scan_a4_pub, "A4 flatbed scan 4960x7016 (600 dpi), receipt in the middle", "jpeg", "jpg", {"quality": 80, "dpi": (600, 600)}),
    Spec("jp-fuel-yen", jp_fuel_yen, "photo: Japanese fuel in yen, no minor units, tax included", "jpeg", "jpg", {"rgb": True, "quality": 86}),
    Spec("id-garage-rupiah", id_garage_rupiah, "Indonesian garage in rupiah: thousands dots, PPN 11% added", "jpeg", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("scan-upside-down-tyres", turned_scan_tyres, "scan stored upside down (turned 180 degrees), no EXIF orientation", "png", "png", {"dpi": (203, 203)}),
    Spec("photo-sideways-fuel", photo_sideways_fuel, "photo stored sideways (turned 90 degrees), EXIF orientation lost", "jpeg", "jpg", {"rgb": True, "quality": 86}),
    Spec("exif-orientation-6", exif_autospares, "JPEG stored turned 90 degrees with EXIF Orientation=6", "jpeg-exif6", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("de-fuel-two-rates", de_fuel_two_rates, "photo: German fuel + shop, VAT table with 19% and 7% rows and a sum", "jpeg", "jpg", {"quality": 86}),
    Spec("nl-ev-charging", nl_ev_charging, "Dutch charging app receipt: kWh x price, BTW 21%, excl./incl.", "png", "png", {}),
    Spec("uk-parking-app", uk_parking_app, "UK parking app receipt: charge + fee, VAT summary per line", "png", "png", {}),
    Spec("uk-insurance-schedule", uk_insurance_schedule, "UK motor insurance schedule: premium incl. IPT stated in a sentence", "jpeg", "jpg", {"quality": 88, "dpi": (200, 200)}),
    Spec("de-garage-invoice", de_garage_invoice, "German garage invoice: parts, labour, zzgl. 19% MwSt", "tiff", "tiff", {"compression": "tiff_lzw", "dpi": (200, 200)}),
    Spec("fr-fuel-photo", fr_fuel_photo, "photo: French fuel, litres x price, Taux/HT/TVA/TTC table", "jpeg", "jpg", {"rgb": True, "quality": 85}),
    Spec("es-fuel", es_fuel, "Spanish fuel: factura simplificada, %IVA column without a % sign", "png", "png", {"dpi": (203, 203)}),
    Spec("it-fuel-photo", it_fuel_photo, "photo: Italian documento commerciale, di cui IVA, P.IVA", "jpeg", "jpg", {"quality": 85}),
    Spec("us-repair-order", us_repair_order, "US repair shop: parts, labor, sales tax on parts only", "jpeg", "jpg", {"quality": 88, "dpi": (203, 203)}),
    Spec("us-gas-store-photo", us_gas_store_photo, "photo: US gas + store items, tax on the taxable items alone", "jpeg", "jpg", {"rgb": True, "quality": 85}),
    Spec("uk-garage-vat-analysis", uk_garage_vat_analysis, "UK garage: VAT codes, MOT outside scope, VAT analysis with the 0% row first", "png", "png", {"dpi": (203, 203)}),
    Spec("uk-ev-charging", uk_ev_charging, "UK charging e-receipt: kWh x price, incl. VAT on the total's row", "webp", "webp", {"quality": 90, "method": 6}),
    # Documents that are not till receipts (issue 58).
    Spec("uk-insurer-deposit-letter", uk_insurer_deposit_letter, "insurer's letter: annual premium, deposit paid today, trading name", "png", "png", {}),
    Spec("uk-insurer-payment-email", uk_insurer_payment_email, "insurer's e-mail: instalment paid beside premium and balance", "png", "png", {}),
    Spec("uk-insurer-renewal-paid", uk_insurer_renewal_paid, "insurer's letter: addressee above the letterhead, premium + IPT", "jpeg", "jpg", {"quality": 88, "dpi": (200, 200)}),
    Spec("uk-dvla-email", uk_dvla_email, "DVLA e-mail: vehicle tax amount paid", "png", "png", {}),
    Spec("uk-dvla-letter", uk_dvla_letter, "DVLA letter: keeper's block, 6 months paid beside the annual rate", "jpeg", "jpg", {"quality": 88, "dpi": (200, 200)}),
    Spec("uk-council-pcn-receipt", uk_council_pcn_receipt, "council letter: penalty charge paid at the discount", "png", "png", {}),
    Spec("uk-council-permit-email", uk_council_permit_email, "council e-mail: resident parking permit", "png", "png", {}),
    Spec("uk-garage-invoice-customer", uk_garage_invoice_customer, "garage invoice: customer block first, net + VAT = total", "jpeg", "jpg", {"quality": 88, "dpi": (200, 200)}),
    Spec("uk-tyre-invoice", uk_tyre_invoice, "tyre fitter's invoice: VAT line and rate/net/VAT/gross row", "png", "png", {"dpi": (203, 203)}),
    Spec("uk-parts-invoice", uk_parts_invoice, "parts invoice: sold-to block, balance brought forward", "jpeg", "jpg", {"quality": 88, "dpi": (200, 200)}),
    Spec("us-parking-app", us_parking_app, "US parking app: city parking tax 25%", "png", "png", {}),
    Spec("uk-fuel-card-statement", uk_fuel_card_statement, "fuel-card statement: balance b/f, payment, amount due", "png", "png", {}),
]


def save(img: Image.Image, path: Path, spec: Spec) -> None:
    opts = dict(spec.opts)
    if opts.pop("rgb", False):  # a colour file of a grey picture, as phones and many scanners write
        img = img.convert("RGB")
    if spec.fmt == "jpeg-exif6":
        exif = Image.Exif()
        exif[0x0112] = 6  # Orientation: rotate 90 degrees clockwise to display
        stored = img.rotate(90, expand=True)  # counter-clockwise; the reader turns it back
        stored.save(path, "JPEG", exif=exif, **opts)
        check = ImageOps.exif_transpose(Image.open(path))
        assert check.size == img.size, "EXIF orientation does not restore the upright receipt"
        return
    if spec.fmt == "webp" and not features.check("webp"):
        sys.exit("make-test-receipts: this Pillow has no WebP support; install the wheel from PyPI")
    img.save(path, spec.fmt.upper(), **opts)


# ----------------------------------------------------------------------------------------------
# Broken files for tests (TestReceipts/bad/)


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def make_bad(out: Path, good_jpeg: Path) -> list[tuple[str, str]]:
    bad = out / "bad"
    bad.mkdir(parents=True, exist_ok=True)
    made = []

    (bad / "empty.jpg").write_bytes(b"")
    made.append(("empty.jpg", "0 bytes"))

    data = good_jpeg.read_bytes()
    (bad / "truncated.jpg").write_bytes(data[: len(data) // 2])
    made.append(("truncated.jpg", f"first half ({len(data) // 2} of {len(data)} bytes) of {good_jpeg.name}"))

    (bad / "text.jpg").write_bytes(
        b"This is a plain text file with a .jpg name.\n"
        b"It is here to test that the pipeline reports it as not an image\n"
        b"instead of crashing or stopping the batch.\n")
    made.append(("text.jpg", "a text file named .jpg"))

    ftyp = struct.pack(">I", 24) + b"ftyp" + b"heic" + struct.pack(">I", 0) + b"mif1" + b"heic"
    hdlr = b"\0\0\0\0" + b"\0\0\0\0" + b"pict" + b"\0" * 12 + b"\0"
    hdlr_box = struct.pack(">I", 8 + len(hdlr)) + b"hdlr" + hdlr
    meta_body = b"\0\0\0\0" + hdlr_box
    meta = struct.pack(">I", 8 + len(meta_body)) + b"meta" + meta_body
    payload = random.Random(f"{SEED}:heic").randbytes(512)
    mdat = struct.pack(">I", 8 + len(payload)) + b"mdat" + payload
    (bad / "photo.heic").write_bytes(ftyp + meta + mdat)
    made.append(("photo.heic", "ISO-BMFF ftyp heic/mif1 + meta/hdlr pict + 512-byte mdat (does not decode)"))

    ihdr = struct.pack(">IIBBBBB", 50000, 50000, 8, 0, 0, 0, 0)  # 8-bit grayscale
    idat = zlib.compress(b"\0" * 64, 9)
    png = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")
    (bad / "huge.png").write_bytes(png)
    made.append(("huge.png", f"PNG, IHDR 50000x50000 gray8 with valid CRC, tiny IDAT, IEND ({len(png)} bytes)"))

    folder = bad / "folder.jpg"
    folder.mkdir(exist_ok=True)
    (folder / ".gitkeep").write_bytes(b"")
    made.append(("folder.jpg/", "a directory named like an image"))
    return made


# ----------------------------------------------------------------------------------------------
# Generate, check, verify


def consistent(name: str, t: Truth) -> None:
    """The ground truth must add up: items to the total (VAT included) or items + tax to the total."""
    assert t.total == m(t.total) and (t.tax is None or (D(0) <= t.tax < t.total)), name
    assert t.category in ("Fuel", "Insurance", "Maintenance", "Vehicle Tax", "Other"), name
    unit = D(1) if places(t.currency) == 0 else CENT
    for i in t.items:
        assert (D(i.quantity) * D(i.unit_price)).quantize(unit, ROUND_HALF_UP) == i.amount, f"{name}: {i}"
    if t.items:
        items = sum((i.amount for i in t.items), D(0))
        assert items == t.total or items + (t.tax or 0) == t.total, f"{name}: items {items} vs total {t.total}"


def generate(out: Path, quiet: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        rng = random.Random(f"{SEED}:{spec.name}")
        img, truth = spec.make(rng)
        consistent(spec.name, truth)
        path = out / f"{spec.name}.{spec.ext}"
        save(img, path, spec)
        (out / f"{spec.name}.expected.json").write_text(
            json.dumps(truth.json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if not quiet:
            print(f"{path.name:32} {img.size[0]:>5}x{img.size[1]:<5} {path.stat().st_size / 1024:8.0f} KB  {spec.kind}")
    made = make_bad(out, out / "uk-fuel-unleaded.jpg")
    made += make_heic(out, quiet)
    made += make_pdfs(out, quiet)
    make_long(out, quiet)
    if not quiet:
        for name, what in made:
            print(f"bad/{name:28} {what}")


HEIC_FROM = "exif-orientation-6"   # stored sideways with EXIF Orientation = 6, as a phone does


def make_heic(out: Path, quiet: bool) -> list[tuple[str, str]]:
    """An iPhone-style HEIC (HEVC, x265 through libheif's heif-enc, Debian's libheif-examples) of the
    sideways EXIF receipt: heif-enc copies the EXIF block (orientation 6) and writes no irot, so the
    reader must turn it as the EXIF says. Its ground truth is that receipt's. Also a truncated copy
    under bad/. heif-enc's output is the same bytes every run."""
    heic = out / "iphone-autospares.heic"
    subprocess.run(["heif-enc", "-q", "60", str(out / f"{HEIC_FROM}.jpg"), "-o", str(heic)],
                   check=True, capture_output=True)
    shutil.copyfile(out / f"{HEIC_FROM}.expected.json", out / "iphone-autospares.expected.json")
    if not quiet:
        print(f"{heic.name:32} {heic.stat().st_size / 1024:20.0f} KB  HEIC (HEVC) of {HEIC_FROM}.jpg, EXIF Orientation = 6, no irot")
    data = heic.read_bytes()
    (out / "bad" / "truncated.heic").write_bytes(data[: len(data) // 2])
    return [("truncated.heic", f"the first half of ../{heic.name}")]


PDF_SCAN_FROM = "uk-parking"


def make_pdfs(out: Path, quiet: bool) -> list[tuple[str, str]]:
    """With fpdf2 (PyPI, scripts/requirements-test-receipts.txt): an emailed fuel-card receipt with
    a real text layer (its ground truth written here), the parking receipt's picture saved as a
    one-page PDF without text (a scan), and under bad/ an encrypted PDF and a 50-page one.
    Creation dates are fixed so the bytes are the same every run."""
    from fpdf import FPDF

    def new_pdf(**kw) -> FPDF:
        pdf = FPDF(**kw)
        pdf.set_creation_date(datetime.datetime(2025, 5, 21, 9, 0, tzinfo=datetime.timezone.utc))
        pdf.set_auto_page_break(False)
        return pdf

    pdf = new_pdf(format=(80, 150))
    pdf.add_page()
    pdf.set_margins(6, 6)
    rows = [("B", 13, "FENWICK FUELS", ""), ("", 8, "Fuel card e-receipt", ""),
            ("", 8, "Harrogate Road Service Station, Leeds LS17 8EX", ""), ("", 8, "VAT No: GB 917 4032 65", ""),
            ("", 8, "", ""), ("", 9, "Date: 21/05/2025   Time: 08:42", ""), ("", 9, "Receipt No: 00418823", ""),
            ("", 8, "", ""), ("", 9, "Pump 2 DIESEL 42.00 L @ 1.500", "63.00"), ("", 8, "", ""),
            ("", 9, "Net (excl. VAT)", "52.50"), ("", 9, "VAT @ 20%", "10.50"), ("B", 11, "TOTAL GBP", "63.00"),
            ("", 8, "", ""), ("", 9, "Paid by fuel card ending 4417", ""), ("", 8, "Thank you for your custom", "")]
    y = 8
    for style, size, left, right in rows:
        pdf.set_font("Helvetica", style, size)
        pdf.set_xy(6, y)
        pdf.cell(46, 5, left)
        if right:
            pdf.set_xy(52, y)
            pdf.cell(22, 5, right, align="R")
        y += 5.5
    digital = out / "email-fuel-card.pdf"
    pdf.output(str(digital))
    (out / "email-fuel-card.expected.json").write_text(json.dumps({
        "vendor": "Fenwick Fuels", "date": "2025-05-21", "total": "63.00", "tax": "10.50", "currency": "GBP",
        "category": "Fuel",
        "lineItems": [{"description": "Pump 2 DIESEL", "quantity": "42.00", "unitPrice": "1.500", "amount": "63.00"}],
    }, indent=2) + "\n", encoding="utf-8")

    picture = out / f"{PDF_SCAN_FROM}.jpg"
    w, h = Image.open(picture).size
    scan = new_pdf(unit="pt", format=(w * 72 / 200, h * 72 / 200))      # a 200-dpi scan
    scan.add_page()
    scan.image(str(picture), x=0, y=0, w=w * 72 / 200, h=h * 72 / 200)
    scanned = out / "scan-parking.pdf"
    scan.output(str(scanned))
    shutil.copyfile(out / f"{PDF_SCAN_FROM}.expected.json", out / "scan-parking.expected.json")
    if not quiet:
        print(f"{digital.name:32} {digital.stat().st_size / 1024:20.0f} KB  PDF with a text layer (emailed fuel-card receipt)")
        print(f"{scanned.name:32} {scanned.stat().st_size / 1024:20.0f} KB  PDF of {PDF_SCAN_FROM}.jpg, no text (a scan)")

    locked = new_pdf(format=(80, 150))
    locked.set_encryption(owner_password="owner", user_password="secret")
    locked.add_page()
    locked.set_font("Helvetica", "", 10)
    locked.text(10, 20, "TOTAL 12.00")
    locked.output(str(out / "bad" / "encrypted.pdf"))

    long = new_pdf(format="A4")
    long.set_font("Helvetica", "", 10)
    for page in range(1, 51):
        long.add_page()
        long.text(20, 20, f"Statement page {page} of 50")
    long.output(str(out / "bad" / "fifty-pages.pdf"))
    return [("encrypted.pdf", "a PDF that needs the password 'secret' to open"),
            ("fifty-pages.pdf", "a 50-page PDF (a statement, not a receipt)")]


def generated_files(root: Path) -> set[str]:
    names = set()
    for spec in SPECS:
        names.add(f"{spec.name}.{spec.ext}")
        names.add(f"{spec.name}.expected.json")
    names |= {"iphone-autospares.heic", "iphone-autospares.expected.json", "email-fuel-card.pdf",
              "email-fuel-card.expected.json", "scan-parking.pdf", "scan-parking.expected.json"}
    for n in ("empty.jpg", "truncated.jpg", "text.jpg", "photo.heic", "truncated.heic", "encrypted.pdf",
              "fifty-pages.pdf", "huge.png", "folder.jpg/.gitkeep"):
        names.add(f"bad/{n}")
    for name, _, sets in LONG:
        names |= {f"long/{name}.jpg", f"long/{name}.expected.json"}
        for count in sets:
            names.add(f"long/{name}-{count}.expected.json")
            names |= {f"long/{name}-{count}-{i}.jpg" for i in range(1, count + 1)}
    return names


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), quiet=True)
        bad = []
        for name in sorted(generated_files(Path(tmp))):
            a, b = Path(tmp) / name, OUT / name
            if not b.exists():
                bad.append(f"missing: TestReceipts/{name}")
            elif not filecmp.cmp(a, b, shallow=False):
                bad.append(f"differs: TestReceipts/{name}")
        hand_written = {"README.md", "bad/README.md", ".gitattributes"}
        for f in sorted(OUT.rglob("*")):
            rel = f.relative_to(OUT).as_posix()
            # email/ is scripts/make-test-emails.py's (it has a --check of its own).
            if rel.startswith("email/"):
                continue
            if f.is_file() and rel not in generated_files(OUT) and rel not in hand_written:
                bad.append(f"not made by this script: TestReceipts/{rel}")
        for line in bad:
            print(line)
        if bad:
            print(f"{len(bad)} file(s) differ from a fresh generation (Pillow {PIL.__version__}; "
                  f"committed with {TESTED_PILLOW})")
            return 1
        print(f"TestReceipts/ matches a fresh generation ({len(generated_files(OUT))} files)")
        return 0


def squash(s: str) -> str:
    return re.sub(r"[^0-9a-z]", "", s.lower())


def ocr(path: Path) -> str:
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    res = subprocess.run(["tesseract", str(path), "stdout", "--psm", "6"], capture_output=True, env=env, text=True)
    if res.returncode != 0:
        return ""
    return res.stdout


def found(needle: str, text: str) -> bool:
    return needle in text or needle.replace(" ", "") in text.replace(" ", "")


def printed_amount(d: Decimal, currency: str) -> str:
    if currency == "IDR":
        return rupiah(d)
    if currency == "JPY":
        return f"{d:,.0f}"
    return eu(d) if currency == "EUR" else f"{d:,.2f}"


def verify() -> int:
    """OCR each image as `tesseract IMG stdout --psm 6` does and look for what the receipt prints."""
    failures = 0
    yes = lambda b: "yes" if b else "NO"
    print(f"{'image':42} vendor date  total tax   items  printed date / total / tax")
    for spec in SPECS:
        path = OUT / f"{spec.name}.{spec.ext}"
        truth = json.loads((OUT / f"{spec.name}.expected.json").read_text(encoding="utf-8"))
        _, t = spec.make(random.Random(f"{SEED}:{spec.name}"))  # for the printed strings
        tax = None if t.tax is None else printed_amount(t.tax, t.currency)
        amounts = [printed_amount(i.amount, t.currency) for i in t.items]
        targets = [(path, "")]
        tmp = None
        if spec.fmt == "jpeg-exif6":
            tmp = Path(tempfile.mkdtemp())
            upright = tmp / "upright.png"
            ImageOps.exif_transpose(Image.open(path)).save(upright)
            targets = [(path, " (as stored)"), (upright, " (EXIF applied)")]
        for target, note in targets:
            text = ocr(target)
            v = squash(truth["vendor"]) in squash(text)
            d = found(t.printed_date, text)
            tot = found(t.printed_total, text)
            tx = tax is None or found(tax, text)
            items = sum(found(a, text) for a in amounts)
            if not (v and d and tot and tx) and note != " (as stored)":
                failures += 1
            print(f"{path.name + note:42} {yes(v):6} {yes(d):5} {yes(tot):5} {yes(tx) if tax else '-':5} "
                  f"{items}/{len(amounts):<5} {t.printed_date} / {t.printed_total} / {tax or '-'}")
        if tmp:
            shutil.rmtree(tmp)
    print(f"{len(SPECS) - failures} of {len(SPECS)} images: vendor, date, total and tax all read by "
          "tesseract --psm 6 (the EXIF image counted with its orientation applied)")
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description="Generate the synthetic test receipts in TestReceipts/.")
    ap.add_argument("--out", type=Path, default=OUT, help="output folder (default: TestReceipts/)")
    ap.add_argument("--check", action="store_true", help="regenerate into a temp folder and compare with TestReceipts/")
    ap.add_argument("--verify", action="store_true", help="OCR TestReceipts/ with tesseract --psm 6 and check vendor/date/total")
    args = ap.parse_args()
    if PIL.__version__ != TESTED_PILLOW:
        print(f"note: Pillow {PIL.__version__}; the committed files were made with {TESTED_PILLOW}, "
              "so bytes may differ (ground truth does not)", file=sys.stderr)
    if args.check:
        return check()
    if args.verify:
        return verify()
    generate(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
