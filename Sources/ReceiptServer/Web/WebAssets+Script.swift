extension WebAssets {
    /// The inbox (live list, uploads) and the review page (fields, word boxes, keys). It reads and
    /// changes receipts through `/v1` with the session cookie and the page's CSRF token.
    static let javaScript = #"""
        "use strict";
        const csrf = document.querySelector('meta[name="csrf"]')?.content ?? "";
        const $ = (selector) => document.querySelector(selector);

        async function api(method, path, body, headers = {}, raw) {
          const init = { method, headers: { "X-CSRF-Token": csrf, ...headers }, credentials: "same-origin" };
          if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
          if (raw !== undefined) init.body = raw;
          const response = await fetch(path, init);
          if (response.status === 401) { location.href = "/signin"; throw new Error("signed out"); }
          return response;
        }
        async function problem(response) {
          try { return (await response.json()).detail ?? response.statusText; } catch { return response.statusText; }
        }
        // The inbox's receipts, the first of each kind (a store may hold a million): those flagged for
        // review, failed, being read, then the rest newest first; at most WINDOW of each, in the
        // inbox's order. `more` says whether a kind has more than that.
        const WINDOW = 100;
        async function inboxWindow(filter = "") {
          const kinds = ["&needsReview=true", "&status=failed", "&status=processing", "&status=pending", "&status=completed&needsReview=false"];
          const pages = await Promise.all(kinds.map(async (kind) => (await api("GET", `/v1/receipts?limit=${WINDOW}${kind}${filter}`)).json()));
          const seen = new Set();
          const records = pages.flatMap((page) => page.receipts ?? []).filter((r) => !seen.has(r.receiptId) && seen.add(r.receiptId));
          return { records: inboxOrder(records), more: pages.some((page) => page.next) };
        }
        async function flaggedReceipts() {
          return (await (await api("GET", `/v1/receipts?limit=${WINDOW}&needsReview=true`)).json()).receipts ?? [];
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
          return records.map((r, i) => [rank[state(r)], r.createdAt ?? "", i, r])
            .sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : a[2] - b[2])).map((x) => x[3]);
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
        // A finger, not a mouse and keyboard: nothing is focused on its own (a phone's keyboard would
        // cover the picture), and the hints speak of tapping.
        const touch = matchMedia("(pointer: coarse)").matches;
        const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        // "2024-06-12" → "12 Jun 2024".
        function day(text) {
          const [y, m, d] = (text ?? "").split("-").map(Number);
          return y && m && d ? `${d} ${MONTHS[m - 1]} ${y}` : "";
        }
        // A file name that says nothing of the receipt (an upload without a name, a phone's "image.jpg").
        function generic(name) { return !name || /^(upload|image|photo|img|picture)([-_ ]?\d{0,3})?(\.[a-z0-9]{2,5})?$/i.test(name); }
        // When a receipt was taken: "Photo of 28 Nov, 09:14".
        function photoOf(record) {
          const at = new Date(record.createdAt ?? Date.now());
          const hh = String(at.getHours()).padStart(2, "0"), mm = String(at.getMinutes()).padStart(2, "0");
          return `Photo of ${at.getDate()} ${MONTHS[at.getMonth()]}, ${hh}:${mm}`;
        }
        // What a receipt is called on the pages: its vendor (and date), else its file's name when it
        // says something, else when it was taken; a failed e-mail by its subject.
        function title(record, withDate = false) {
          const vendor = record.expense?.description || record.analysis?.vendor;
          const date = day(record.expense?.date ?? record.analysis?.date);
          if (vendor) return withDate && date ? `${vendor}, ${date}` : vendor;
          if (record.source?.kind === "email" && record.source.subject) return record.source.subject;
          const file = (record.file ?? "").split("/").pop();
          return generic(file) ? photoOf(record) : file;
        }
        function pictureCount(record) { return record.analysis?.pictures?.length ?? 1; }
        // A failed receipt's error without the file name it starts with (the row or page is that receipt).
        function errorText(record) {
          const error = record.error ?? record.lastError ?? "failed", prefix = `${record.file}: `;
          return error.startsWith(prefix) ? error.slice(prefix.length) : error;
        }
        // Whose a receipt is, said where it is not the reader's own: owner, end user, group.
        function whose(record) {
          return [record.owner, record.externalUser, record.group].filter(Boolean).join(" · ");
        }
        const ENVELOPE = '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="2.5" y="5" width="19" height="14" rx="2" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M3 6.5l9 6.5 9-6.5" fill="none" stroke="currentColor" stroke-width="1.6"/></svg>';

        // MARK: Inbox

        const me = document.body.dataset.user ?? "";
        const isAdmin = document.body.dataset.admin === "true";

        async function inbox() {
          const list = $("#receipts"), counts = $("#counts"), uploads = $("#uploads"), ownerFilter = $("#owner-filter");
          async function refresh() {
            const owner = ownerFilter?.value ?? "";
            const filter = owner ? `&owner=${encodeURIComponent(owner)}` : "";
            // Counted by the server, each up to its cap ("10000+"); the list: the first of each kind.
            const [{ records, more }, tally] = await Promise.all([inboxWindow(filter),
              api("GET", `/v1/receipts?limit=1&counts=true${filter}`).then((r) => r.json()).then((page) => page.counts)]);
            const shown = (n) => n >= tally.cap ? `${tally.cap.toLocaleString()}+` : String(n);
            counts.replaceChildren(...Object.keys(labels).map((k) => el("span", { "data-count": k }, el("b", {}, shown(tally[k])), labels[k])));
            if (records.length === 0) { list.replaceChildren(el("p", {}, "No receipts yet: drop some above.")); return; }
            const rows = records.map((r) => {
              const s = state(r), e = r.expense;
              const amount = e?.amount !== undefined && e?.amount !== null ? `${money(e.amount)} ${e.currency ?? ""}` : "";
              // A failed e-mail has no picture: an envelope, and its subject for a title.
              const mail = s === "failed" && r.source?.kind === "email";
              let thumb;
              if (mail) {
                thumb = el("span", { class: "envelope", "data-thumb": "email" });
                thumb.innerHTML = ENVELOPE;
              } else {
                thumb = el("img", { alt: "", loading: "lazy", src: `/v1/receipts/${r.receiptId}/thumbnail` });
                thumb.addEventListener("error", () => thumb.removeAttribute("src"));
              }
              const file = (r.file ?? "").split("/").pop();
              const count = pictureCount(r);
              const detail = s === "failed" ? errorText(r)
                : [day(e?.date ?? r.analysis?.date), generic(file) ? null : file, count > 1 ? `${count} pictures` : null].filter(Boolean).join(" · ");
              return el("a", { class: "row", href: `/review/${r.receiptId}`, "data-id": r.receiptId, "data-state": s },
                thumb,
                el("span", { class: "meta" }, el("div", { class: "title" }, title(r)), el("div", { class: "file" }, detail),
                  r.owner && r.owner !== me ? el("div", { class: "owner", "data-owner": r.owner }, whose(r)) : null),
                el("span", { class: "side" }, amount ? el("span", { class: "amount" }, amount) : null, el("span", { class: `badge ${s}` }, labels[s])));
            });
            if (more) rows.push(el("p", { class: "more", id: "more" }, `The first ${WINDOW} of each kind are shown; review them to see the next.`));
            list.replaceChildren(...rows);
          }
          uploader = new Uploader(uploads, refresh);
          ownerFilter?.addEventListener("change", refresh);
          const drop = $("#drop");
          pickers((file) => uploader.add(file));
          // "Add the rest of this receipt" (after a photo): the camera again, its photo filed into that receipt.
          uploads.addEventListener("click", (event) => {
            const more = event.target.closest?.("label[data-receipt]");
            if (more) $("#more").dataset.receipt = more.dataset.receipt;
          });
          $("#more").addEventListener("change", () => {
            const input = $("#more");
            for (const f of input.files) uploader.add(f, input.dataset.receipt);
            input.value = "";
          });
          drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
          drop.addEventListener("dragleave", () => drop.classList.remove("over"));
          drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); for (const f of e.dataTransfer.files) uploader.add(f); });
          await refresh();
          uploader.resume();
          document.body.dataset.ready = "true";
        }

        // The camera (capture="environment": a phone opens it) and the file picker: each file taken
        // is handed to `take`, one after the other; the camera can be opened again at once.
        function pickers(take) {
          for (const input of [$("#camera"), $("#files")]) {
            input?.addEventListener("change", () => { for (const f of input.files) take(f); input.value = ""; });
          }
        }

        // MARK: Uploads and the queue of those not sent yet

        // Every upload is first written to this device's queue (IndexedDB), then sent, and taken off
        // the queue only once the server has answered: an upload cut by a lost connection, a stopped
        // server or an ended session waits there, is shown as waiting, and is sent again (with the
        // same Idempotency-Key, so the server keeps one receipt even when the first try arrived)
        // when the page loads, when the browser is back online, every few seconds while any waits,
        // or on "Send now". What the server refuses (not an image, too large) is shown and dropped.
        const queue = {
          open() {
            return new Promise((resolve, reject) => {
              const request = indexedDB.open("receipts", 1);
              request.onupgradeneeded = () => request.result.createObjectStore("uploads", { keyPath: "key" });
              request.onsuccess = () => resolve(request.result);
              request.onerror = () => reject(request.error);
            });
          },
          async run(mode, work) {
            const db = await queue.open();
            return new Promise((resolve, reject) => {
              const t = db.transaction("uploads", mode), request = work(t.objectStore("uploads"));
              t.oncomplete = () => { db.close(); resolve(request.result); };
              t.onerror = t.onabort = () => { db.close(); reject(t.error); };
            });
          },
          put(item) { return queue.run("readwrite", (store) => store.put(item)); },
          remove(key) { return queue.run("readwrite", (store) => store.delete(key)); },
          async all() { return ((await queue.run("readonly", (store) => store.getAll())) ?? []).sort((a, b) => a.added - b.added); },
        };
        function newKey() {
          const bytes = crypto.getRandomValues(new Uint8Array(16));
          return "upload-" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
        }
        // Says on the page how many uploads wait on this device (the inbox, the sign-in and offline
        // pages): not those being sent or read now, which their own rows show.
        async function showWaiting(extra = "") {
          const waiting = $("#waiting");
          if (!waiting || !window.indexedDB) return 0;
          const count = (await queue.all().catch(() => [])).filter((item) => !uploader?.sending.has(item.key)).length;
          waiting.hidden = count === 0;
          waiting.dataset.count = String(count);
          const what = count === 1 ? "1 upload waits" : `${count} uploads wait`;
          waiting.replaceChildren(`${what} on this device to be sent${extra}.`);
          return count;
        }

        let uploader = null;
        class Uploader {
          constructor(list, refresh) {
            this.list = list;
            this.refresh = refresh;
            this.sending = new Set();
            this.items = new Map();
            this.timer = null;
            window.addEventListener("online", () => this.resume());
            document.addEventListener("visibilitychange", () => { if (!document.hidden) this.resume(); });
          }
          // A file picked or photographed: kept first, then sent.
          // `to`: the receipt the file is the next picture of (the rest of a long receipt).
          async add(file, to) {
            const item = { key: newKey(), name: file.name || "photo.jpg", type: file.type, added: Date.now(), bytes: await file.arrayBuffer() };
            if (to) item.to = to;
            // Being sent from the moment it is kept: no count of what waits says it waits meanwhile.
            this.sending.add(item.key);
            try { await queue.put(item); } catch { item.unkept = true; }
            this.row(item);
            await this.transmit(item);
          }
          // The list item of an upload: its name, its progress, then its result.
          row(item) {
            let row = this.items.get(item.key);
            if (!row) {
              const progress = el("progress", { max: "1", value: "0" }), label = el("span", {}, item.name);
              const li = el("li", { "data-file": item.name, "data-key": item.key, "data-state": "uploading" }, label, progress);
              this.list.append(li);
              row = { li, label, progress };
              this.items.set(item.key, row);
            }
            return row;
          }
          async send(item) {
            if (this.sending.has(item.key)) return;
            this.sending.add(item.key);
            await this.transmit(item);
          }
          // Sends an item `sending` holds already.
          async transmit(item) {
            const { li, label, progress } = this.row(item);
            li.dataset.state = "uploading";
            label.className = "";
            label.textContent = item.name;
            progress.hidden = false;
            progress.value = 0;
            const started = performance.now();
            const answer = await new Promise((resolve) => {
              const request = new XMLHttpRequest();
              // ?wait=30: the answer comes when the receipt is read (no polling while it is read
              // within 30 s; docs/review-ui.md has the measurement).
              request.open("POST", item.to ? `/v1/receipts/${item.to}/pictures?wait=30&filename=${encodeURIComponent(item.name)}`
                : `/v1/receipts?wait=30&filename=${encodeURIComponent(item.name)}`);
              request.setRequestHeader("X-CSRF-Token", csrf);
              request.setRequestHeader("Idempotency-Key", item.key);
              if (item.type) request.setRequestHeader("Content-Type", item.type);
              request.upload.addEventListener("progress", (e) => { if (e.lengthComputable) progress.value = e.loaded / e.total; });
              request.upload.addEventListener("load", () => { progress.removeAttribute("value"); label.textContent = `${item.name}: reading…`; });
              request.addEventListener("load", () => resolve({ status: request.status, text: request.responseText }));
              request.addEventListener("error", () => resolve({ status: 0 }));
              request.addEventListener("timeout", () => resolve({ status: 0 }));
              request.send(new Blob([item.bytes], { type: item.type || "application/octet-stream" }));
            });
            let record = null;
            try { record = JSON.parse(answer.text); } catch {}
            // Not sent, or not taken: the connection, a server that is down or busy, an ended session.
            if (answer.status === 0 || answer.status === 401 || answer.status === 429 || answer.status >= 502) {
              this.sending.delete(item.key);
              li.dataset.state = "waiting";
              progress.value = 0;
              label.className = "waiting";
              label.textContent = answer.status === 401 ? `${item.name}: waiting (signed out: sign in again to send it)`
                : `${item.name}: waiting to be sent (${answer.status === 0 ? "no connection to the server" : record?.detail ?? "the server is busy"})`;
              await showWaiting(" when the server can be reached");
              this.later();
              if (answer.status === 401) location.href = "/signin";
              return;
            }
            await queue.remove(item.key).catch(() => {});
            this.sending.delete(item.key);
            if (answer.status === 202 && record) record = await until(record.receiptId);
            if (answer.status >= 400 || !record) {
              li.dataset.state = "error";
              label.textContent = `${item.name}: ${record?.detail ?? "refused (" + answer.status + ")"}`;
              label.className = "error";
              // Refused: nothing is on its way any more, so no bar says it is.
              progress.hidden = true;
            } else {
              li.dataset.state = state(record);
              li.dataset.ms = String(Math.round(performance.now() - started));
              li.dataset.id = record.receiptId;
              const count = pictureCount(record);
              label.textContent = item.to ? `${item.name}: added, ${count} pictures: ${labels[state(record)]}` : `${item.name}: ${labels[state(record)]}`;
              progress.value = 1;
              // A photo of a receipt longer than the picture: the camera again for the rest of it.
              if (record.ocrStatus !== "failed" && !(item.type ?? "").includes("pdf")) {
                li.querySelector("label.more")?.remove();
                li.append(el("label", { class: "button more", for: "more", "data-receipt": record.receiptId }, "Add the rest of this receipt"));
              }
            }
            await showWaiting();
            await this.refresh();
          }
          // Sends what waits on this device (after a reload too), one at a time.
          async resume() {
            const waiting = await queue.all().catch(() => []);
            await showWaiting();
            for (const item of waiting) { this.row(item); await this.send(item); }
          }
          // While anything waits: try again every 5 s.
          later() {
            if (this.timer) return;
            this.timer = setTimeout(async () => { this.timer = null; if (!document.hidden) await this.resume(); else this.later(); }, 5000);
          }
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

        // "total", "total and tax", "vendor, total and tax".
        const listed = (words) => words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;

        async function review() {
          const id = document.body.dataset.id;
          // A receipt the user may only look at (a group's, as a viewer): fields shown, nothing changed.
          const readOnly = document.body.dataset.readOnly === "true";
          let record = await (await api("GET", `/v1/receipts/${id}`)).json();
          if (record.status === 404) { $("#status").textContent = record.detail; return; }
          $("#file").textContent = title(record, true);
          document.title = `${title(record, true)} · Receipts`;
          const order = (await inboxWindow()).records.map((r) => r.receiptId);
          const at = order.indexOf(id);
          $("#position").textContent = at >= 0 ? `Receipt ${at + 1} of ${order.length}` : "";
          // "Enter confirms…" is for a keyboard on a page that can confirm.
          $(".hint.keys").hidden = readOnly || touch;
          setUpMore(id);
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
            $("#error-line").textContent = errorText(record);
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
            // The fields the analysis says a person should look at (analysis.review), marked; the first is focused.
            const toCheck = expense.status === "confirmed" ? [] : FIELDS.map((f) => f.key).filter((k) => (record.analysis?.review ?? []).includes(k));
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
              // A field the receipt does not have (no tax line): no confidence to show, and no alarm.
              const c = input.value === "" ? undefined : confidence[field.confidence];
              const badge = el("span", { class: `conf ${c === undefined ? "none" : c >= 0.94 ? "high" : "low"}`,
                                         title: c === undefined ? "not on the receipt" : "confidence" },
                               c === undefined ? "" : `${Math.round(c * 100)}%`);
              const row = el("div", { class: toCheck.includes(field.key) ? "field check" : "field", "data-field": field.key },
                             el("label", { for: input.id }, field.label), input, badge);
              input.addEventListener("focus", () => { highlight(field.key); if (input.select) input.select(); });
              input.addEventListener("input", () => row.classList.toggle("changed", input.value !== input.dataset.drafted));
              form.append(row);
              if (field.key === "vendor") rememberedNote(row, input);
            }
            form.hidden = false;
            const by = expense.confirmedBy ? ` by ${expense.confirmedBy}` : "";
            const then = touch ? "tap a field to correct it, then Confirm." : "check the fields, then Enter.";
            $("#status").textContent = expense.status === "confirmed" ? `Confirmed${by}.`
              : readOnly ? "You may view this receipt, not change it."
              : toCheck.length > 0 ? `${expense.needsReview ? "Needs review" : "Drafted"}: check the ${listed(toCheck.map((k) => FIELDS.find((f) => f.key === k).label.toLowerCase()))}${touch ? "; tap a field to correct it, then Confirm." : ", then Enter."}`
              : expense.needsReview ? `Needs review: ${then}` : `Drafted: ${touch ? "tap a field to correct it" : "check, then Enter"}.`;
            setUpSplit(id, record, expense);
            // On a phone nothing is focused: its keyboard would cover the picture.
            if (readOnly) document.body.dataset.readOnlyShown = "true"; else if (!touch) $(`#f-${toCheck[0] ?? "vendor"}`).focus();
          }

          // The shop the memory recognised (sources.vendor.memory): how many of the person's
          // confirmations taught it, and, for one who may change it, the name typed in the field
          // kept for the receipts to come (PATCH /v1/vendors/{id}).
          function rememberedNote(row, input) {
            const memory = record.analysis?.sources?.vendor?.memory;
            if (!memory || !memory.vendorId) return;
            const n = memory.confirmations ?? 0;
            const note = el("div", { class: "hint remembered", id: "remembered" },
                            `remembered from ${n} receipt${n === 1 ? "" : "s"} you confirmed`);
            if (!readOnly) {
              const keep = el("button", { type: "button", id: "use-name", class: "link" }, "use this name from now on");
              keep.addEventListener("click", async () => {
                const name = input.value.trim();
                if (name === "") { $("#status").className = "status error"; $("#status").textContent = "Type the name to use first."; return; }
                const response = await api("PATCH", `/v1/vendors/${memory.vendorId}`, { name });
                if (!response.ok) { $("#status").className = "status error"; $("#status").textContent = await problem(response); return; }
                $("#status").className = "status ok";
                $("#status").textContent = `“${name}” will be used for this shop from now on.`;
              });
              note.append(" · ", keep);
            }
            row.after(note);
          }

          // A field's words: sources[key] is their list, or, for a vendor the memory recognised,
          // {"memory": …, "words": […]}.
          const wordsOf = (sources, key) => Array.isArray(sources?.[key]) ? sources[key] : sources?.[key]?.words ?? [];

          // follow: show the page of a PDF the words are on (not when a page was turned by hand).
          function highlight(key, follow = true) {
            focused = key;
            const sources = record.analysis?.sources, boxes = $("#boxes");
            for (const layer of document.querySelectorAll(".boxes")) layer.replaceChildren();
            if (!sources || wordsOf(sources, key).length === 0) return;
            // A receipt in several pictures: each word on the picture it was read from.
            if (sources.pictures) {
              let first = null;
              for (const word of wordsOf(sources, key)) {
                const frame = document.querySelector(`.frame[data-picture="${word.picture}"]`), size = sources.pictures[word.picture - 1];
                if (!frame || !size) continue;
                const img = frame.querySelector("img");
                if (img.naturalWidth && (img.naturalWidth > img.naturalHeight) !== (size.imageWidth > size.imageHeight)) continue;
                const [x, y, w, h] = word.box;
                const box = el("div", { title: word.text, "data-text": word.text, "data-picture": String(word.picture) });
                box.style.left = `${100 * x / size.imageWidth}%`;
                box.style.top = `${100 * y / size.imageHeight}%`;
                box.style.width = `${100 * w / size.imageWidth}%`;
                box.style.height = `${100 * h / size.imageHeight}%`;
                frame.querySelector(".boxes").append(box);
                first = first ?? box;
              }
              reveal(first);
              return;
            }
            // OCR turned a sideways picture upright: its boxes are for the turned page, which the
            // record does not describe, so none is drawn rather than a wrong one. (A PDF's pages
            // are compared stacked, as OCR read them.)
            const image = $("#image");
            const [shownWidth, shownHeight] = pageSizes.length ? stacked() : [image.naturalWidth, image.naturalHeight];
            if (shownWidth && (shownWidth > shownHeight) !== (sources.imageWidth > sources.imageHeight)) {
              $("#status").textContent = "The reader turned this picture: its words cannot be shown on it.";
              return;
            }
            const placed = wordsOf(sources, key).map((word) => [word, onPage(word.box, sources)]);
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
            reveal(boxes.firstChild);
          }
          // A page of a PDF (or a picture) drawn: the focused field's words on it.
          for (const img of document.querySelectorAll(".frame img")) img.addEventListener("load", () => { if (focused) highlight(focused, false); });

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
            const flagged = (await flaggedReceipts()).map((r) => r.receiptId).filter((r) => r !== id);
            const next = order.slice(at + 1).find((r) => flagged.includes(r)) ?? flagged[0];
            location.href = next ? `/review/${next}` : "/";
          }

          // The buttons at the thumb (shown on a phone): the same as Enter, j and k.
          $("#confirm").hidden = readOnly || !expense;
          $("#confirm").addEventListener("click", () => confirm());
          $("#next").addEventListener("click", () => go(1));
          $("#previous").addEventListener("click", () => go(-1));
          $("#next").disabled = !(at >= 0 && order[at + 1]);
          $("#previous").disabled = !(at > 0);

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

        // Pictures of different receipts sent as one (analysis.review names "pictures" or
        // "lineItems"): the offer to make a receipt of each picture, then the first of them shown.
        function setUpSplit(id, record, expense) {
          const why = { pictures: "Its pictures share no row: they may be different receipts.",
                        lineItems: "Its items add up to far from its total: its pictures may be different receipts." };
          const reasons = (record.analysis?.review ?? []).filter((r) => why[r]);
          if (!$("#split") || reasons.length === 0 || expense.status === "confirmed") return;
          $("#split-why").textContent = reasons.map((r) => why[r]).join(" ");
          $("#split").hidden = false;
          $("#split-button").addEventListener("click", async () => {
            $("#split-button").disabled = true;
            const response = await api("POST", `/v1/receipts/${id}/split`);
            if (!response.ok) { $("#split-why").textContent = await problem(response); $("#split-button").disabled = false; return; }
            const made = (await response.json()).receipts ?? [];
            location.href = made.length ? `/review/${made[0].receiptId}` : "/";
          });
        }

        // A PDF is shown a page at a time; data-page-sizes has its pages' sizes in points.
        const pageSizes = (document.body.dataset.pageSizes ?? "").split(",").filter(Boolean).map((p) => p.split("x").map(Number));
        let pageShown = 1, focused = null;
        function showPage(n) {
          if (!pageSizes.length || n < 1 || n > pageSizes.length || n === pageShown) return false;
          pageShown = n;
          $("#boxes").replaceChildren();
          $("#image").src = `/v1/receipts/${document.body.dataset.id}/pages/${n}`;
          $("#page-number").textContent = `Page ${n} of ${pageSizes.length}`;
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

        // The review page's "Add the rest of this receipt": the camera again, the photo sent as the
        // receipt's next picture (with a key of its own, so a retry adds it once), then the receipt
        // read again with it.
        function setUpMore(id) {
          const input = $("#more");
          if (!input || !$("#add-more")) return;
          input.addEventListener("change", async () => {
            const file = input.files[0];
            input.value = "";
            if (!file) return;
            const key = newKey();
            $("#status").className = "status";
            $("#status").textContent = "Adding the picture…";
            for (let attempt = 0; attempt < 3; attempt++) {
              let response;
              try {
                response = await api("POST", `/v1/receipts/${id}/pictures?wait=30&filename=${encodeURIComponent(file.name || "photo.jpg")}`, undefined,
                                     { "Idempotency-Key": key, "Content-Type": file.type || "application/octet-stream" }, file);
              } catch { await new Promise((r) => setTimeout(r, 2000)); continue; }
              if (!response.ok) { $("#status").className = "status error"; $("#status").textContent = await problem(response); return; }
              const record = await response.json();
              if (record.ocrStatus !== "completed" && record.ocrStatus !== "failed") await until(id);
              location.reload();
              return;
            }
            $("#status").className = "status error";
            $("#status").textContent = "The picture could not be sent: no connection to the server. Try again.";
          });
        }

        let scale = 1, turn = 0;
        // Zooms to `next` keeping the point (x, y) of the screen where it is (the stage's middle by default).
        function zoomTo(next, x, y) {
          const stage = $("#stage"), frame = stage.getBoundingClientRect();
          next = Math.min(6, Math.max(0.25, next));
          if (x === undefined) { x = frame.left + frame.width / 2; y = frame.top + frame.height / 2; }
          const ratio = next / scale, px = x - frame.left, py = y - frame.top;
          const fx = px + stage.scrollLeft, fy = py + stage.scrollTop;
          scale = next;
          $("#sheet").style.width = `${scale * 100}%`;
          stage.scrollLeft = fx * ratio - px;
          stage.scrollTop = fy * ratio - py;
          document.body.dataset.zoom = scale.toFixed(2);
        }
        function zoom(factor) { zoomTo(scale * factor); }
        function rotate() { turn = (turn + 90) % 360; $("#sheet").style.transform = `rotate(${turn}deg)`; }
        // Scrolls the picture (not the page) so that `box` is in view.
        function reveal(box) {
          if (!box) return;
          const stage = $("#stage"), frame = stage.getBoundingClientRect(), at = box.getBoundingClientRect();
          if (at.top < frame.top || at.bottom > frame.bottom) stage.scrollTop += at.top - frame.top - (frame.height - at.height) / 2;
          if (at.left < frame.left || at.right > frame.right) stage.scrollLeft += at.left - frame.left - (frame.width - at.width) / 2;
        }
        // Touch: two fingers pinch the picture, a double tap zooms in (2.5×) where it was tapped and out again.
        function setUpTouch() {
          const stage = $("#stage"), touches = new Map();
          let pinch = null, lastTap = null;
          const spread = () => { const [a, b] = [...touches.values()]; return Math.hypot(a.x - b.x, a.y - b.y); };
          stage.addEventListener("pointerdown", (e) => {
            if (e.pointerType !== "touch") return;
            touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
            if (touches.size === 2) pinch = { spread: spread(), scale };
          });
          stage.addEventListener("pointermove", (e) => {
            if (!touches.has(e.pointerId)) return;
            touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
            if (pinch && touches.size === 2) {
              const [a, b] = [...touches.values()];
              zoomTo(pinch.scale * spread() / pinch.spread, (a.x + b.x) / 2, (a.y + b.y) / 2);
              e.preventDefault();
            }
          });
          const lift = (e) => {
            if (!touches.has(e.pointerId)) return;
            const wasPinch = pinch !== null;
            touches.delete(e.pointerId);
            if (touches.size < 2) pinch = null;
            if (wasPinch || e.type === "pointercancel") { lastTap = null; return; }
            const now = performance.now();
            if (lastTap && now - lastTap.at < 350 && Math.hypot(e.clientX - lastTap.x, e.clientY - lastTap.y) < 30) {
              zoomTo(scale > 1.01 ? 1 : 2.5, e.clientX, e.clientY);
              lastTap = null;
            } else {
              lastTap = { at: now, x: e.clientX, y: e.clientY };
            }
          };
          stage.addEventListener("pointerup", lift);
          stage.addEventListener("pointercancel", lift);
        }
        function setUpViewer() {
          setUpTouch();
          $("#zoom-in").addEventListener("click", () => zoom(1.25));
          $("#zoom-out").addEventListener("click", () => zoom(0.8));
          $("#rotate").addEventListener("click", rotate);
          $("#page-prev")?.addEventListener("click", () => showPage(pageShown - 1));
          $("#page-next")?.addEventListener("click", () => showPage(pageShown + 1));
        }

        // The page without a connection (the service worker's): photos taken here only wait.
        async function offline() {
          const list = $("#uploads");
          pickers(async (file) => {
            const item = { key: newKey(), name: file.name || "photo.jpg", type: file.type, added: Date.now(), bytes: await file.arrayBuffer() };
            await queue.put(item);
            list.append(el("li", { "data-file": item.name, "data-key": item.key, "data-state": "waiting" }, el("span", { class: "waiting" }, `${item.name}: kept, waiting to be sent`)));
            await showWaiting(": open the inbox when the server can be reached");
          });
          window.addEventListener("online", () => { location.href = "/"; });
          await showWaiting(": open the inbox when the server can be reached");
          document.body.dataset.ready = "true";
        }

        // The page installs as an app (the manifest) and opens offline (the service worker), where
        // the browser allows it: on HTTPS, or on this machine.
        if ("serviceWorker" in navigator && window.isSecureContext) {
          navigator.serviceWorker.register("/sw.js").then(() => { document.body.dataset.serviceWorker = "registered"; })
            .catch(() => { document.body.dataset.serviceWorker = "failed"; });
        }

        const page = document.body.dataset.page;
        if (page === "inbox") inbox();
        else if (page === "review") review();
        else if (page === "offline") offline();
        else if (page === "signin") showWaiting(": sign in to send them").then(() => { document.body.dataset.ready = "true"; });
        """#
}
