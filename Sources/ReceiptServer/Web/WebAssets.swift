import HTTPTypes
import Hummingbird
import NIOCore

/// The review pages' stylesheet and script, compiled into the binary: no files to install, no
/// CDN, no build step. The script (`javaScript`) is in `WebAssets+Script.swift`.
enum WebAssets {
    static func response(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static let css = #"""
        :root { color-scheme: light dark; --accent: #3b7dd8; --warn: #c77700; --bad: #c0392b; --ok: #2e8b57;
                --line: color-mix(in srgb, currentColor 18%, transparent); font-family: system-ui, sans-serif; }
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; line-height: 1.4; }
        a { color: var(--accent); }
        code, kbd { font-family: ui-monospace, monospace; font-size: .9em; }
        kbd { border: 1px solid var(--line); border-radius: 3px; padding: 0 .3em; }
        button, .button { font: inherit; padding: .35em .8em; border-radius: 6px; border: 1px solid var(--line);
                          background: var(--accent); color: white; cursor: pointer; text-decoration: none; display: inline-block; }
        .top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); flex-wrap: nowrap; }
        .top .brand { font-weight: 700; text-decoration: none; color: inherit; }
        /* The links keep their width; the user's name gives way (cut with …), never runs into them. */
        .top nav { display: flex; gap: .8rem; flex: 1 0 auto; }
        .top nav a[aria-current] { font-weight: 700; }
        .top .user { opacity: .8; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 40vw; }
        /* The account: the user's name, and under it a menu (Your account, Sign out), so the header stays one line. */
        .account-menu { position: relative; flex: 0 1 auto; min-width: 0; }
        .account-menu summary { max-width: 100%; }
        .account-menu summary { list-style: none; cursor: pointer; display: inline-flex; align-items: center; gap: .3rem; }
        .account-menu summary::-webkit-details-marker { display: none; }
        .account-menu summary::after { content: "▾"; font-size: .8em; opacity: .7; }
        .account-menu .menu { position: absolute; right: 0; top: calc(100% + .35rem); z-index: 10; min-width: 10rem; padding: .5rem;
                         background: Canvas; color: CanvasText; border: 1px solid var(--line); border-radius: 8px;
                         box-shadow: 0 6px 20px rgba(0,0,0,.2); }
        .account-menu .menu button { width: 100%; background: transparent; color: inherit; }
        .account-menu .menu a { display: block; padding: .35em .8em; margin-bottom: .3rem; }
        .owner-filter { display: inline-flex; gap: .4rem; align-items: center; margin-bottom: .6rem; }
        .owner-filter select { width: auto; }
        .receipts .owner, p.owner { font-size: .85em; opacity: .75; }
        input:disabled, select:disabled { opacity: .8; background: transparent; }
        main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
        .signin { max-width: 26rem; }
        .signin form { display: grid; gap: .5rem; }
        .signin .passkey-signin button { width: 100%; margin-bottom: 1rem; }
        .signin details { margin-top: 1rem; }
        .note { border-left: 3px solid var(--accent); padding-left: .6rem; }
        .account { max-width: 46rem; }
        .account ul { list-style: none; padding: 0; display: grid; gap: .5rem; }
        .account li { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between; }
        .account li form, .account .add-passkey { display: inline-flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
        .account .add-passkey input { width: 12rem; }
        .account .when { opacity: .75; font-size: .9em; flex: 1; }
        /* A passkey: its name and Rename on one line, Remove apart at the end; when it was added and used under them. */
        .account ul.passkeys { gap: 0; }
        .account li.passkey { display: grid; grid-template-columns: minmax(0, 1fr) auto; grid-template-areas: "name remove" "when when";
                              gap: .35rem 1rem; padding: .7rem 0; border-bottom: 1px solid var(--line); }
        .account li.passkey .rename { grid-area: name; display: flex; flex-wrap: nowrap; min-width: 0; max-width: 24rem; }
        .account li.passkey .rename input { flex: 1; min-width: 0; width: auto; }
        .account li.passkey .when { grid-area: when; }
        .account li.passkey .remove { grid-area: remove; justify-self: end; }
        /* Second to the page's one action: outlined. Destructive (Remove): quiet, in the colour of danger. */
        button.secondary, .button.secondary { background: transparent; color: inherit; }
        button.danger { background: transparent; color: var(--bad); border-color: color-mix(in srgb, var(--bad) 45%, transparent); }
        .account .password-form, .account .invite-form { display: grid; gap: .5rem; max-width: 26rem; }
        .account .anyway input { width: auto; }
        .qr svg { max-width: 100%; height: auto; }
        input, select { font: inherit; padding: .35em .5em; border: 1px solid var(--line); border-radius: 5px; width: 100%; }
        .error { color: var(--bad); }
        .hint { opacity: .75; font-size: .9em; }
        .counts { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: 1rem; }
        .counts span { border: 1px solid var(--line); border-radius: 999px; padding: .2em .8em; }
        .counts b { margin-right: .3em; }
        .drop { border: 2px dashed var(--line); border-radius: 10px; padding: 1rem; text-align: center; margin-bottom: 1rem; }
        .drop.over { border-color: var(--accent); background: color-mix(in srgb, var(--accent) 10%, transparent); }
        .drop ul { list-style: none; padding: 0; margin: .5rem 0 0; text-align: left; }
        .drop li { display: grid; grid-template-columns: 1fr 8rem; gap: .5rem; align-items: center; }
        .drop li progress { width: 100%; }
        .receipts { display: grid; gap: .4rem; }
        .row { display: grid; grid-template-columns: 56px minmax(0, 1fr) max-content; gap: .8rem; align-items: center; padding: .4rem .6rem;
               border: 1px solid var(--line); border-radius: 8px; color: inherit; text-decoration: none; }
        .row:focus, .row:hover { outline: 2px solid var(--accent); }
        .row img { width: 56px; height: 56px; object-fit: cover; object-position: top; border-radius: 4px; background: var(--line); }
        .row .meta { min-width: 0; }
        .row .meta div { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .row .envelope { width: 56px; height: 56px; border-radius: 4px; background: var(--line); display: grid; place-items: center; }
        .row .envelope svg { width: 30px; height: 30px; }
        .row .file { opacity: .7; font-size: .85em; }
        .row .side { display: flex; flex-direction: column; align-items: flex-end; gap: .2rem; }
        .badge { border-radius: 999px; padding: .1em .6em; font-size: .85em; border: 1px solid currentColor; white-space: nowrap; }
        .badge.review { color: var(--warn); } .badge.failed { color: var(--bad); } .badge.confirmed { color: var(--ok); }
        .panel { margin-top: 1.5rem; border-top: 1px solid var(--line); }
        .panel h2 { font-size: 1rem; }
        .kept th { text-align: left; font-weight: 500; padding-right: 1rem; }
        .kept td { padding-right: 1rem; }
        main.review { display: grid; grid-template-columns: minmax(0, 3fr) minmax(18rem, 2fr); gap: 1.2rem; max-width: none; }
        .viewer .tools { display: flex; gap: .4rem; align-items: center; margin-bottom: .4rem; }
        .viewer .tools button { padding: .1em .7em; }
        .viewer .pages { display: inline-flex; gap: .3rem; align-items: center; }
        .position { margin: 0; font-size: .85em; opacity: .75; }
        .viewer .more { margin: .5rem 0 0; }
        .stage { overflow: auto; max-height: calc(100vh - 8rem); border: 1px solid var(--line); border-radius: 6px; }
        .sheet { position: relative; width: 100%; transform-origin: center center; }
        .sheet img { width: 100%; display: block; }
        /* A receipt in several pictures: one under another, each with the boxes of its own words. */
        .frame { position: relative; }
        .frame + .frame { margin-top: 4px; }
        .boxes { position: absolute; inset: 0; pointer-events: none; }
        .boxes div { position: absolute; border: 2px solid #ff9800; background: rgba(255, 200, 0, .3); border-radius: 2px; }
        .fields h1 { font-size: 1.1rem; word-break: break-all; }
        .field { display: grid; grid-template-columns: 7rem 1fr 3.5rem; gap: .5rem; align-items: center; margin-bottom: .45rem; }
        .field label { font-weight: 600; }
        .field .conf { font-size: .8em; text-align: right; border-radius: 4px; padding: .1em .3em; }
        .conf.low { background: color-mix(in srgb, var(--warn) 25%, transparent); }
        .conf.high { background: color-mix(in srgb, var(--ok) 20%, transparent); }
        /* A field with no value (a receipt without tax): nothing to be sure of, so no alarm. */
        .conf.none { opacity: .6; }
        .field.check label::after { content: " ●"; color: var(--warn); }
        .field.check input { border-color: var(--warn); border-width: 2px; }
        .field.changed input, .field.changed select { border-color: var(--accent); border-width: 2px; }
        .status.ok { color: var(--ok); }
        .help { position: fixed; inset: 10% 20%; background: Canvas; color: CanvasText; border: 1px solid var(--line);
                border-radius: 10px; padding: 1rem 1.5rem; box-shadow: 0 10px 40px rgba(0,0,0,.3); overflow: auto; }
        .help dt { font-weight: 700; } .help dd { margin: 0 0 .5rem 1rem; }
        .filters { display: flex; gap: .6rem; align-items: end; flex-wrap: wrap; margin-bottom: 1rem; }
        .filters label { display: grid; font-size: .9em; }
        .filters input, .filters select { width: auto; }
        .summary { display: flex; gap: 2rem; flex-wrap: wrap; }
        .summary figure { margin: 0; } .summary figcaption { font-weight: 600; margin-bottom: .3rem; }
        .chart { max-width: 100%; height: auto; }
        table.list { width: 100%; border-collapse: collapse; margin-top: 1rem; }
        table.list th, table.list td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
        /* Amounts: right-aligned, every digit the same width, on every width of screen. */
        table.list .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .summary .also { margin: .4rem 0 0; font-variant-numeric: tabular-nums; }
        /* The phone's parts, hidden on a desktop: the camera button and the review's buttons at the thumb. */
        .camera, .actions { display: none; }
        .drop li span { min-width: 0; overflow-wrap: anywhere; }
        .waiting { color: var(--warn); }
        p.waiting { font-weight: 600; }
        .stage { touch-action: pan-x pan-y; }
        .offline { max-width: 30rem; }
        @media (max-width: 760px) {
          main { padding: .75rem; }
          main.review { grid-template-columns: 1fr; gap: .6rem; padding-bottom: calc(5rem + env(safe-area-inset-bottom)); }
          /* The picture stays at the top while the fields scroll under it: a focused field's words stay in sight. */
          .viewer { position: sticky; top: 0; z-index: 2; background: Canvas; padding-top: .3rem; }
          .stage { max-height: 38vh; }
          .field { grid-template-columns: 5.5rem minmax(0, 1fr) 3rem; }
          /* A field scrolled to (tapped, Tab) stops below the picture and above the buttons. */
          .field input, .field select { scroll-margin-top: calc(38vh + 4rem); scroll-margin-bottom: 5.5rem; }
          .help { inset: 5%; }
          .hint.keys, .drop-text { display: none; }
          .camera { display: inline-flex; }
          .drop { padding: .8rem; }
          .drop li { grid-template-columns: minmax(0, 1fr) 5rem; }
          /* Confirm and the next receipt under the thumb, whatever is scrolled. */
          .actions { display: flex; position: fixed; left: 0; right: 0; bottom: 0; z-index: 3; gap: .5rem;
                     padding: .5rem .75rem calc(.5rem + env(safe-area-inset-bottom)); background: Canvas; border-top: 1px solid var(--line); }
          .actions #confirm { flex: 1; font-weight: 600; }
          .actions .secondary { background: transparent; color: inherit; }
          .top { gap: .4rem .8rem; padding: .3rem .75rem; }
          .top .user { font-size: .9em; max-width: none; }
          /* On a phone the header names the user only; the account page says they administer. */
          .top .user .role { display: none; }
          /* A vendor's name wraps to a second line rather than being cut. */
          .row .meta .title { white-space: normal; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow-wrap: anywhere; }
          .filters label, .filters input, .filters select { width: 100%; }
          .filters label { flex: 1 1 9rem; }
          /* The expenses as cards: vendor and amount, then date and status, then category and currency. */
          table.list thead { display: none; }
          table.list, table.list tbody { display: block; }
          table.list tr { display: grid; grid-template-columns: minmax(0, 1fr) auto; grid-template-areas: "vendor amount" "date status" "category currency";
                          gap: 0 .6rem; padding: .4rem 0; border-bottom: 1px solid var(--line); }
          table.list td { border: 0; padding: 0; min-width: 0; overflow-wrap: anywhere; }
          table.list td:nth-child(1) { grid-area: date; } table.list td:nth-child(2) { grid-area: vendor; }
          table.list td:nth-child(3) { grid-area: category; } table.list td:nth-child(4) { grid-area: amount; text-align: right; }
          table.list td:nth-child(5) { grid-area: currency; text-align: right; } table.list td:nth-child(6) { grid-area: status; text-align: right; }
          table.list td[colspan] { grid-column: 1 / -1; }
          .summary { gap: 1rem; }
          .summary figure, .summary svg { max-width: 100%; }
        }
        /* A finger, not a mouse: every control at least 44 px each way. */
        @media (pointer: coarse), (max-width: 760px) {
          button, .button { min-height: 44px; min-width: 44px; display: inline-flex; align-items: center; justify-content: center; }
          input, select { min-height: 44px; font-size: 16px; }
          .top nav a, .top .brand, .account-menu summary, .account-menu .menu a { display: inline-flex; align-items: center; min-height: 44px; min-width: 44px; padding: 0 .3rem; }
          .row { min-height: 60px; }
          table.list td a { display: inline-flex; align-items: center; min-height: 44px; min-width: 44px; }
          .viewer .tools button { padding: 0 .9em; }
        }
        """#
}
