#!/usr/bin/env python3
"""Write the project's test e-mail messages into TestReceipts/email/.

Every message is made up here (no real mail is copied; every sender, shop and number is invented),
next to a ``<name>.expected.json`` that says what ``receipts mail`` must file from it: for each
receipt its vendor, date, total, tax and currency, or the error of a message with no receipt. The
output is committed, so CI never runs this script; run it only to change or add messages.

The attachments are the project's own test receipts (TestReceipts/*.jpg, *.heic) and an insurer's
PDF drawn here with fpdf2 (pinned in scripts/requirements-test-receipts.txt).

Usage:
    python3 scripts/make-test-emails.py            # regenerate TestReceipts/email/
    python3 scripts/make-test-emails.py --check    # regenerate into a temp dir, compare with TestReceipts/email/

Output is deterministic: fixed Message-IDs, dates and MIME boundaries, no clocks.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import struct
import sys
import tempfile
import zlib
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECEIPTS = ROOT / "TestReceipts"
OUT = RECEIPTS / "email"


def message(subject: str, sender: str, date: str, message_id: str, to: str = "Driver <driver@fleet.example>") -> EmailMessage:
    msg = EmailMessage(policy=SMTP)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = date
    msg["Message-ID"] = f"<{message_id}>"
    return msg


def fix_boundaries(msg: EmailMessage, name: str) -> None:
    """Boundaries from the message's name, so that the bytes are the same on every run."""
    for index, part in enumerate(msg.walk()):
        if part.is_multipart():
            part.set_boundary(f"=_receipts_{name}_{index}")


def html_page(body: str, title: str) -> str:
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>td {{ font-family: Arial, sans-serif; padding: 4px; }} .amount {{ text-align: right; }}</style>
<script>window.trackOpen && trackOpen("this never runs");</script>
</head>
<body>
<div style="display:none;max-height:0;overflow:hidden">Thanks for your visit! Your receipt is inside. &#8203;&#8203;</div>
{body}
<img src="https://tracker.invalid/open.gif" width="1" height="1" alt="">
</body></html>
"""


def png(width: int, height: int, colour: tuple[int, int, int], noise: int = 0) -> bytes:
    """A PNG drawn here (a logo stand-in): solid colour, with `noise` bytes of pattern to set its size."""
    raw = b""
    for y in range(height):
        row = bytes([0])
        for x in range(width):
            r, g, b = colour
            if noise and (x * 7 + y * 13) % 5 == 0:
                r, g, b = (x * 31 + y) % 256, (y * 17 + x) % 256, (x * y) % 256
            row += bytes([r, g, b])
        raw += row
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def insurer_pdf() -> bytes:
    from fpdf import FPDF
    pdf = FPDF(format="A4")
    pdf.set_creation_date(__import__("datetime").datetime(2025, 5, 14, 9, 30))
    pdf.set_creator("make-test-emails.py")
    pdf.set_producer("fpdf2")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, "Thistledown Insurance", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    for line in ["4 Harrow Yard, Leeds LS1 4QP", "Policy TD-MOT-448210", "", "PREMIUM RECEIPT", "Date: 14/05/2025", ""]:
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    for label, amount in [("Annual motor premium", "393.75"), ("Insurance Premium Tax 12%", "47.25"),
                          ("Total paid", "GBP 441.00")]:
        pdf.cell(120, 7, label)
        pdf.cell(50, 7, amount, align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 6, "", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 6, "Paid by card ending 4417. Thank you for insuring with us.", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def fuel_app() -> tuple[EmailMessage, dict]:
    msg = message("Your Pumpway receipt", "Pumpway <receipts@pumpway.example>", "Tue, 03 Jun 2025 08:41:12 +0100",
                  "r-20250603-0841-7731@pumpway.example")
    text = ("Pumpway Fuels - Kingsway Service Station\n03/06/2025 08:39\nDiesel 38.20 L @ 1.569  59.94\n"
            "Net  49.95\nVAT 20%  9.99\nTotal paid  59.94\n")
    body = """
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="480">
  <tr><td colspan="2"><h1>Pumpway Fuels</h1></td></tr>
  <tr><td colspan="2">Kingsway Service Station, Leeds LS9 8AB</td></tr>
  <tr><td>Date</td><td class="amount">03/06/2025 08:39</td></tr>
  <tr><td>Pump 4 Diesel 38.20 L @ 1.569</td><td class="amount">&pound;59.94</td></tr>
  <tr><td>Net</td><td class="amount">&pound;49.95</td></tr>
  <tr><td>VAT 20%</td><td class="amount">&pound;9.99</td></tr>
  <tr><td><b>Total paid</b></td><td class="amount"><b>&pound;59.94</b></td></tr>
  <tr><td colspan="2">Paid with Pumpway Pay (Visa &bull;&bull;&bull;&bull; 4417)</td></tr>
</table>
</td></tr></table>"""
    msg.set_content(text)
    msg.add_alternative(html_page(body, "Your Pumpway receipt"), subtype="html")
    return msg, {"receipts": [{"vendor": "Pumpway Fuels", "date": "2025-06-03", "total": "59.94", "tax": "9.99", "currency": "GBP"}]}


def parking_app() -> tuple[EmailMessage, dict]:
    msg = message("Parking session receipt - ParkLink", "ParkLink <noreply@parklink.example>", "Wed, 11 Jun 2025 17:05:40 +0100",
                  "session-99172634@parklink.example")
    json_ld = {
        "@context": "https://schema.org", "@type": "Order", "orderNumber": "PL-99172634",
        "merchant": {"@type": "Organization", "name": "ParkLink"},
        "orderDate": "2025-06-11T14:58:00+01:00", "price": "6.40", "priceCurrency": "GBP",
        "acceptedOffer": {"@type": "Offer", "itemOffered": {"@type": "Service", "name": "Parking, Castle Street car park"},
                          "price": "6.40", "priceCurrency": "GBP"},
    }
    body = f"""
<script type="application/ld+json">{json.dumps(json_ld)}</script>
<table width="100%"><tr><td>
  <p><img src="cid:logo" alt="ParkLink" width="120" height="40"></p>
  <p>Thanks for parking with ParkLink.</p>
  <table>
    <tr><th align="left">Location</th><td>Castle Street car park, York (zone 4410)</td></tr>
    <tr><th align="left">Started</th><td>11 June 2025, 14:58</td></tr>
    <tr><th align="left">Ended</th><td>11 June 2025, 17:02</td></tr>
    <tr><th align="left">Parking</th><td align="right">£5.33</td></tr>
    <tr><th align="left">VAT (20%)</th><td align="right">£1.07</td></tr>
    <tr><th align="left">Total</th><td align="right">£6.40</td></tr>
  </table>
</td></tr></table>"""
    msg.set_content("Your parking receipt is attached as HTML; view it in a mail client that shows HTML.\n")
    msg.add_alternative(html_page(body, "ParkLink receipt"), subtype="html")
    html_part = msg.get_payload()[1]
    html_part.add_related(png(120, 40, (20, 90, 200)), maintype="image", subtype="png", cid="<logo>", filename="parklink-logo.png")
    return msg, {"receipts": [{"vendor": "ParkLink", "date": "2025-06-11", "total": "6.40", "tax": "1.07", "currency": "GBP"}]}


def ride_hailing() -> tuple[EmailMessage, dict]:
    msg = message("Your Thursday evening trip with Swiftride", "Swiftride Receipts <receipts@swiftride.example>",
                  "Thu, 19 Jun 2025 23:12:03 +0100", "trip-5f0c2a7e@swiftride.example")
    body = """
<table width="100%"><tr>
  <td valign="top"><h2>Swiftride</h2><p>Thanks for riding, Sam</p><p>19 June 2025</p></td>
  <td valign="top">
    <table>
      <tr><td>Trip fare</td><td align="right">£14.50</td></tr>
      <tr><td>Booking fee</td><td align="right">£1.25</td></tr>
      <tr><td>Includes VAT (20%)</td><td align="right">£2.63</td></tr>
      <tr><td><table><tr><td><b>Total</b></td><td><b>£15.75</b></td></tr></table></td></tr>
    </table>
  </td>
</tr></table>
<p>Pickup 22:31 Wellington Place, Leeds &middot; Drop-off 22:54 Chapel Allerton</p>
<p>Swiftride Ltd, 1 Mill Lane, Leeds LS1 1AA. VAT no. GB 947 3381 20</p>"""
    msg.set_content("Your Swiftride receipt: total £15.75 on 19 June 2025.\n")
    msg.add_alternative(html_page(body, "Swiftride trip"), subtype="html")
    return msg, {"receipts": [{"vendor": "Swiftride", "date": "2025-06-19", "total": "15.75", "tax": "2.63", "currency": "GBP"}]}


def insurer() -> tuple[EmailMessage, dict]:
    msg = message("Your premium receipt", "Thistledown Insurance <documents@thistledown.example>", "Wed, 14 May 2025 09:30:00 +0100",
                  "doc-448210-premium@thistledown.example")
    msg.set_content("Dear customer,\n\nPlease find your premium receipt attached.\n\nThistledown Insurance\n")
    msg.add_attachment(insurer_pdf(), maintype="application", subtype="octet-stream", filename="premium-receipt.pdf")
    return msg, {"receipts": [{"vendor": "Thistledown Insurance", "date": "2025-05-14", "total": "441.00", "tax": "47.25", "currency": "GBP"}]}


def forwarded_photo() -> tuple[EmailMessage, dict]:
    inner = message("Fuel receipt", "Sam Carter <sam.carter@fleet.example>", "Sun, 19 Jan 2025 18:22:10 +0000",
                    "photo-19012025@phone.fleet.example", to="Jo Finance <jo@fleet.example>")
    inner.set_content("Sent from my phone\n")
    inner.add_attachment((RECEIPTS / "photo-rotated-fuel.jpg").read_bytes(), maintype="image", subtype="jpeg", filename="IMG_4412.jpg")
    fix_boundaries(inner, "inner")
    msg = message("Fwd: Fuel receipt", "Jo Finance <jo@fleet.example>", "Mon, 20 Jan 2025 09:01:44 +0000",
                  "fwd-20012025-0901@fleet.example", to="receipts@fleet.example")
    msg.set_content("For the expenses, forwarded from Sam.\n")
    msg.add_attachment(inner)
    expected = json.loads((RECEIPTS / "photo-rotated-fuel.expected.json").read_text())
    return msg, {"receipts": [{k: expected[k] for k in ("vendor", "date", "total", "tax", "currency")}],
                 "note": "the photo is read by OCR (TestReceipts/photo-rotated-fuel.jpg): recognized, not read exactly"}


def heic() -> tuple[EmailMessage, dict]:
    msg = message("receipt", "Alex Reed <alex.reed@fleet.example>", "Sun, 08 Sep 2024 12:15:00 +0100", "heic-08092024@fleet.example")
    msg.set_content("\n")
    # Declared as a generic file: what it is is told by its bytes.
    msg.add_attachment((RECEIPTS / "iphone-autospares.heic").read_bytes(), maintype="application", subtype="octet-stream",
                       filename="IMG_0042.HEIC")
    expected = json.loads((RECEIPTS / "iphone-autospares.expected.json").read_text())
    return msg, {"receipts": [{k: expected[k] for k in ("vendor", "date", "total", "tax", "currency")}],
                 "note": "the photo is read by OCR (TestReceipts/iphone-autospares.heic): recognized, not read exactly"}


def logo_only() -> tuple[EmailMessage, dict]:
    msg = message("Welcome to Pumpway Rewards", "Pumpway <hello@pumpway.example>", "Mon, 02 Jun 2025 10:00:00 +0100",
                  "welcome-rewards-1182@pumpway.example")
    body = """<p><img src="cid:logo" alt="Pumpway"></p><h1>Welcome!</h1>
<p>You now collect points every time you fill up. See you at the pump.</p>"""
    msg.set_content("Welcome to Pumpway Rewards! You now collect points every time you fill up.\n")
    msg.add_alternative(html_page(body, "Welcome"), subtype="html")
    msg.get_payload()[1].add_related(png(160, 48, (230, 120, 0), noise=1), maintype="image", subtype="png", cid="<logo>",
                                     filename="pumpway-logo.png")
    return msg, {"receipts": [{"error": "no receipt in the message: no PDF or image attachment and no amounts in its text"}]}


MESSAGES = {
    "fuel-app-html": fuel_app,
    "parking-app-jsonld": parking_app,
    "ride-nested-table": ride_hailing,
    "insurer-pdf": insurer,
    "forwarded-phone-photo": forwarded_photo,
    "heic-attachment": heic,
    "logo-only": logo_only,
}


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, make in MESSAGES.items():
        msg, expected = make()
        fix_boundaries(msg, name.replace("-", "_"))
        raw = msg.as_bytes(policy=SMTP)
        (out / f"{name}.eml").write_bytes(raw)
        expected = {"subject": str(msg["Subject"]), "from": str(msg["From"]), **expected}
        (out / f"{name}.expected.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare a fresh run with TestReceipts/email/")
    args = parser.parse_args()
    if not args.check:
        write(OUT)
        print(f"wrote {len(MESSAGES)} messages to {OUT.relative_to(ROOT)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp))
        names = sorted(p.name for p in Path(tmp).iterdir())
        _, mismatch, errors = filecmp.cmpfiles(Path(tmp), OUT, names, shallow=False)
        if mismatch or errors:
            print("differ from TestReceipts/email/:", *(mismatch + errors))
            return 1
    print("TestReceipts/email/ is what the script makes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
