extension WebAssets {
    /// The inbox (live list, uploads) and the review page (fields, word boxes, keys). It reads and
    /// changes receipts through `/v1` with the session cookie and the page's CSRF token.
    static let javaScript = #"""
        "use strict";
        const csrf = document.querySelector('meta[name="csrf"]')?.content ?? "";
        const $ = (selector) => document.querySelector(selector);

        async function api(method, path, body, headers = {}) {
          const init = { method, headers: { "X-CSRF-Token": csrf, ...headers }, credentials: "same-origin" };
          if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
          const response = await fetch(path, init);
          if (response.status === 401) { location.href = "/signin"; throw new Error("signed out"); }
          return response;
        }
        async function problem(response) {
          try { return (await response.json()).detail ?? response.statusText; } catch { return response.statusText; }
        }
        async function allReceipts(filter = "") {
          let out = [], after = null;
          do {
            const response = await api("GET", `/v1/receipts?limit=500${filter}${after ? "&after=" + after : ""}`);
            const page = await response.json();
            out = out.concat(page.receipts);
            after = page.next;
          } while (after);
          return out;
        }
        function state(record) {
          if (record.ocrStatus === "failed") return "failed";
          if (record.ocrStatus !== "completed") return "reading";
          if (record.expense?.status === "confirmed") return "confirmed";
          return record.expense?.needsReview ? "review" : "done";
        }
        const rank = { review: 0, failed: 1, reading: 2, done: 3, confirmed: 4 };
        // The inbox's order, which j/k follow too: needing review, failed, being read, the rest; newest first in each.
        function inboxOrder(records) {
          return records.map((r, i) => [rank[state(r)], i, r]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]);
        }
        function decimals(n) { const s = String(n); return s.includes(".") ? s.length - s.indexOf(".") - 1 : 0; }
        function money(n) { return n === null || n === undefined ? "" : decimals(n) < 2 ? n.toFixed(2) : String(n); }
        function el(tag, attributes = {}, ...children) {
          const node = document.createElement(tag);
          for (const [k, v] of Object.entries(attributes)) {
            if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
          }
          for (const child of children) if (child !== null && child !== undefined) node.append(child);
          return node;
        }
        const labels = { review: "needs review", failed: "failed", reading: "being read", done: "done", confirmed: "confirmed" };

        // MARK: Inbox

        const me = document.body.dataset.user ?? "";
        const isAdmin = document.body.dataset.admin === "true";

        async function inbox() {
          const list = $("#receipts"), counts = $("#counts"), uploads = $("#uploads"), ownerFilter = $("#owner-filter");
          async function refresh() {
            const owner = ownerFilter?.value ?? "";
            const records = inboxOrder(await allReceipts(owner ? `&owner=${encodeURIComponent(owner)}` : ""));
            const tally = { review: 0, failed: 0, reading: 0, done: 0, confirmed: 0 };
            for (const r of records) tally[state(r)]++;
            counts.replaceChildren(...Object.entries(tally).map(([k, n]) => el("span", { "data-count": k }, el("b", {}, String(n)), labels[k])));
            if (records.length === 0) { list.replaceChildren(el("p", {}, "No receipts yet: drop some above.")); return; }
            list.replaceChildren(...records.map((r) => {
              const s = state(r), e = r.expense, a = r.analysis;
              const title = e?.description || a?.vendor || r.file;
              const amount = e?.amount !== undefined && e?.amount !== null ? `${money(e.amount)} ${e.currency ?? ""}` : "";
              const thumb = el("img", { alt: "", loading: "lazy", src: `/v1/receipts/${r.receiptId}/thumbnail` });
              thumb.addEventListener("error", () => thumb.removeAttribute("src"));
              return el("a", { class: "row", href: `/review/${r.receiptId}`, "data-id": r.receiptId, "data-state": s },
                thumb,
                el("span", { class: "meta" }, el("div", {}, title), el("div", { class: "file" }, s === "failed" ? r.error ?? "" : `${e?.date ?? ""} ${r.file}`),
                  r.owner && r.owner !== me ? el("div", { class: "owner", "data-owner": r.owner }, `${r.owner}${r.group ? " · " + r.group : ""}`) : null),
                el("span", { class: "side" }, amount ? el("span", { class: "amount" }, amount) : null, el("span", { class: `badge ${s}` }, labels[s])));
            }));
          }
          function upload(file) {
            const progress = el("progress", { max: "1", value: "0" }), label = el("span", {}, file.name);
            const item = el("li", { "data-file": file.name, "data-state": "uploading" }, label, progress);
            uploads.append(item);
            const started = performance.now();
            return new Promise((resolve) => {
              const request = new XMLHttpRequest();
              // ?wait=30: the answer comes when the receipt is read (no polling while it is read
              // within 30 s; docs/review-ui.md has the measurement).
              request.open("POST", `/v1/receipts?wait=30&filename=${encodeURIComponent(file.name)}`);
              request.setRequestHeader("X-CSRF-Token", csrf);
              request.upload.addEventListener("progress", (e) => { if (e.lengthComputable) progress.value = e.loaded / e.total; });
              request.upload.addEventListener("load", () => { progress.removeAttribute("value"); label.textContent = `${file.name}: reading…`; });
              request.addEventListener("load", async () => {
                let record = null;
                try { record = JSON.parse(request.responseText); } catch {}
                if (request.status === 202 && record) record = await until(record.receiptId);
                if (request.status >= 400 || !record) {
                  item.dataset.state = "error";
                  label.textContent = `${file.name}: ${record?.detail ?? request.statusText}`;
                  label.className = "error";
                } else {
                  item.dataset.state = state(record);
                  item.dataset.ms = String(Math.round(performance.now() - started));
                  label.textContent = `${file.name}: ${labels[state(record)]}`;
                  progress.value = 1;
                }
                await refresh();
                resolve();
              });
              request.addEventListener("error", () => { item.dataset.state = "error"; label.textContent = `${file.name}: the upload failed (network)`; resolve(); });
              request.send(file);
            });
          }
          ownerFilter?.addEventListener("change", refresh);
          const input = $("#files"), drop = $("#drop");
          input.addEventListener("change", () => { for (const f of input.files) upload(f); input.value = ""; });
          drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
          drop.addEventListener("dragleave", () => drop.classList.remove("over"));
          drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); for (const f of e.dataTransfer.files) upload(f); });
          await refresh();
          document.body.dataset.ready = "true";
        }

        // A receipt read beyond ?wait: asked again every second until it is done.
        async function until(id) {
          for (;;) {
            const record = await (await api("GET", `/v1/receipts/${id}`)).json();
            if (record.ocrStatus === "completed" || record.ocrStatus === "failed") return record;
            await new Promise((r) => setTimeout(r, 1000));
          }
        }

        // MARK: Review

        const FIELDS = [
          { key: "vendor", label: "Vendor", expense: "description", confidence: "vendor" },
          { key: "date", label: "Date", expense: "date", confidence: "date", placeholder: "YYYY-MM-DD" },
          { key: "total", label: "Total", expense: "amount", confidence: "total", money: true },
          { key: "tax", label: "Tax", expense: "taxAmount", confidence: "tax", money: true },
          { key: "currency", label: "Currency", expense: "currency", confidence: "currency" },
          { key: "category", label: "Category", expense: "category", confidence: "category", select: true },
          { key: "deductible", label: "Deductible %", expense: "taxDeductiblePercentage", confidence: "category" },
        ];

        async function review() {
          const id = document.body.dataset.id;
          // A receipt the user may only look at (a group's, as a viewer): fields shown, nothing changed.
          const readOnly = document.body.dataset.readOnly === "true";
          let record = await (await api("GET", `/v1/receipts/${id}`)).json();
          if (record.status === 404) { $("#status").textContent = record.detail; return; }
          $("#file").textContent = record.file;
          const order = inboxOrder(await allReceipts()).map((r) => r.receiptId);
          const at = order.indexOf(id);
          $("#position").textContent = at >= 0 ? `${at + 1} of ${order.length}` : "";
          const go = (step) => { const next = order[at + step]; if (at >= 0 && next) location.href = `/review/${next}`; };
          setUpViewer();
          let expense = null, etag = null;
          const form = $("#fields");

          if (record.ocrStatus === "pending" || record.ocrStatus === "processing") {
            $("#status").textContent = "Being read…";
            record = await until(id);
            location.reload();
            return;
          }
          if (record.ocrStatus === "failed") {
            $("#failed").hidden = false;
            $("#error-line").textContent = record.error ?? record.lastError ?? "failed";
            $("#retry").hidden = readOnly;
            $("#retry").addEventListener("click", async () => {
              const response = await api("POST", `/v1/receipts/${id}/retry`);
              if (!response.ok) { $("#error-line").textContent = await problem(response); return; }
              $("#failed").hidden = true;
              $("#status").textContent = "Being read again…";
              await until(id);
              location.reload();
            });
          } else {
            const answer = await api("GET", `/v1/expenses/${record.expense.id}`);
            etag = answer.headers.get("ETag");
            expense = (await answer.json()).expense;
            const confidence = record.analysis?.confidence ?? {};
            const categories = [...$("#category-options").options].map((o) => o.value);
            for (const field of FIELDS) {
              const value = expense[field.expense];
              const input = field.select
                ? el("select", { id: `f-${field.key}`, name: field.key }, ...categories.map((c) => el("option", { value: c }, c)))
                : el("input", { id: `f-${field.key}`, name: field.key, type: "text", inputmode: field.money || field.key === "deductible" ? "decimal" : "text",
                                placeholder: field.placeholder ?? "" });
              input.value = field.money ? money(value) : value === null || value === undefined ? "" : String(value);
              input.dataset.drafted = input.value;
              if (readOnly) input.disabled = true;
              const c = confidence[field.confidence];
              const badge = el("span", { class: `conf ${c === undefined ? "" : c >= 0.94 ? "high" : "low"}`, title: "confidence" },
                               c === undefined ? "" : `${Math.round(c * 100)}%`);
              const row = el("div", { class: "field", "data-field": field.key }, el("label", { for: input.id }, field.label), input, badge);
              input.addEventListener("focus", () => { highlight(field.key); if (input.select) input.select(); });
              input.addEventListener("input", () => row.classList.toggle("changed", input.value !== input.dataset.drafted));
              form.append(row);
            }
            form.hidden = false;
            const by = expense.confirmedBy ? ` by ${expense.confirmedBy}` : "";
            $("#status").textContent = expense.status === "confirmed" ? `Confirmed${by}.`
              : readOnly ? "You may view this receipt, not change it."
              : expense.needsReview ? "Needs review: check the fields, then Enter." : "Drafted: check, then Enter.";
            if (readOnly) document.body.dataset.readOnlyShown = "true"; else $("#f-vendor").focus();
          }

          // follow: show the page of a PDF the words are on (not when a page was turned by hand).
          function highlight(key, follow = true) {
            focused = key;
            const sources = record.analysis?.sources, boxes = $("#boxes");
            boxes.replaceChildren();
            if (!sources || !sources[key]) return;
            // OCR turned a sideways picture upright: its boxes are for the turned page, which the
            // record does not describe, so none is drawn rather than a wrong one. (A PDF's pages
            // are compared stacked, as OCR read them.)
            const image = $("#image");
            const [shownWidth, shownHeight] = pageSizes.length ? stacked() : [image.naturalWidth, image.naturalHeight];
            if (shownWidth && (shownWidth > shownHeight) !== (sources.imageWidth > sources.imageHeight)) {
              $("#status").textContent = "The reader turned this picture: its words cannot be shown on it.";
              return;
            }
            const placed = sources[key].map((word) => [word, onPage(word.box, sources)]);
            if (follow && placed.length && !placed.some(([, p]) => p[0] === pageShown) && showPage(placed[0][1][0])) return;
            for (const [word, [n, x, y, w, h]] of placed) {
              if (n !== pageShown) continue;
              const box = el("div", { title: word.text, "data-text": word.text });
              box.style.left = `${100 * x}%`;
              box.style.top = `${100 * y}%`;
              box.style.width = `${100 * w}%`;
              box.style.height = `${100 * h}%`;
              boxes.append(box);
            }
            boxes.firstChild?.scrollIntoView({ block: "nearest", inline: "nearest" });
          }
          // A page of a PDF drawn: the focused field's words on it.
          $("#image").addEventListener("load", () => { if (focused) highlight(focused, false); });

          async function confirm() {
            if (!expense || readOnly) return;
            const body = {};
            for (const field of FIELDS) {
              const input = $(`#f-${field.key}`);
              if (input.value === input.dataset.drafted) continue;
              const text = input.value.trim();
              body[field.expense] = text === "" && field.key !== "vendor" ? null : text;
            }
            body.status = "confirmed";
            $("#status").textContent = "Saving…";
            const response = await api("PATCH", `/v1/expenses/${expense.id}`, body, etag ? { "If-Match": etag } : {});
            if (!response.ok) { $("#status").className = "status error"; $("#status").textContent = await problem(response); return; }
            $("#status").className = "status ok";
            $("#status").textContent = "Confirmed.";
            const flagged = (await allReceipts("&needsReview=true")).map((r) => r.receiptId).filter((r) => r !== id);
            const next = order.slice(at + 1).find((r) => flagged.includes(r)) ?? flagged[0];
            location.href = next ? `/review/${next}` : "/";
          }

          const help = $("#help");
          document.addEventListener("keydown", (event) => {
            const typing = event.target.matches?.("input, select, textarea");
            if (event.key === "Escape") { if (!help.hidden) help.hidden = true; else event.target.blur?.(); return; }
            if (event.key === "Enter" && !event.isComposing && (typing || event.target === document.body)) {
              event.preventDefault();
              confirm();
              return;
            }
            if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
            if (event.key === "?") { help.hidden = !help.hidden; event.preventDefault(); }
            else if (event.key === "j") go(1);
            else if (event.key === "k") go(-1);
            else if (event.key === "+" || event.key === "=") zoom(1.25);
            else if (event.key === "-") zoom(0.8);
            else if (event.key === "r") rotate();
            else if (event.key === "[") showPage(pageShown - 1);
            else if (event.key === "]") showPage(pageShown + 1);
          });
          document.body.dataset.ready = "true";
        }

        // A PDF is shown a page at a time; data-page-sizes has its pages' sizes in points.
        const pageSizes = (document.body.dataset.pageSizes ?? "").split(",").filter(Boolean).map((p) => p.split("x").map(Number));
        let pageShown = 1, focused = null;
        function showPage(n) {
          if (!pageSizes.length || n < 1 || n > pageSizes.length || n === pageShown) return false;
          pageShown = n;
          $("#boxes").replaceChildren();
          $("#image").src = `/v1/receipts/${document.body.dataset.id}/pages/${n}`;
          $("#page-number").textContent = `page ${n} of ${pageSizes.length}`;
          $("#page-prev").disabled = n === 1;
          $("#page-next").disabled = n === pageSizes.length;
          return true;
        }
        // The pages as OCR read them, one below the other: as wide as the widest, in points.
        function stacked() { return [Math.max(...pageSizes.map((p) => p[0])), pageSizes.reduce((t, p) => t + p[1], 0)]; }
        // A box in the pixels of the image OCR read: [page, x, y, w, h], the page from 1 and the
        // rest as fractions of that page (of the image itself when it is not a PDF).
        function onPage([x, y, w, h], sources) {
          const fx = x / sources.imageWidth, fy = y / sources.imageHeight, fw = w / sources.imageWidth, fh = h / sources.imageHeight;
          if (!pageSizes.length) return [1, fx, fy, fw, fh];
          const [widest, total] = stacked();
          let above = 0;
          for (let i = 0; i < pageSizes.length; i++) {
            const [pw, ph] = pageSizes[i];
            if (fy * total < above + ph || i === pageSizes.length - 1) {
              return [i + 1, (fx * widest) / pw, (fy * total - above) / ph, (fw * widest) / pw, (fh * total) / ph];
            }
            above += ph;
          }
        }

        let scale = 1, turn = 0;
        function zoom(factor) { scale = Math.min(6, Math.max(0.25, scale * factor)); $("#sheet").style.width = `${scale * 100}%`; }
        function rotate() { turn = (turn + 90) % 360; $("#sheet").style.transform = `rotate(${turn}deg)`; }
        function setUpViewer() {
          $("#zoom-in").addEventListener("click", () => zoom(1.25));
          $("#zoom-out").addEventListener("click", () => zoom(0.8));
          $("#rotate").addEventListener("click", rotate);
          $("#page-prev")?.addEventListener("click", () => showPage(pageShown - 1));
          $("#page-next")?.addEventListener("click", () => showPage(pageShown + 1));
        }

        const page = document.body.dataset.page;
        if (page === "inbox") inbox();
        else if (page === "review") review();
        """#
}
