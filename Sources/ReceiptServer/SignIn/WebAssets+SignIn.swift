extension WebAssets {
    /// The sign-in, invitation and account pages' script (`/assets/signin.js`): passkeys'
    /// two ceremonies (`navigator.credentials.get` on the sign-in page, `.create` on the account
    /// page) with the server's options, and an invitation link that signs in at once.
    static let signInScript = #"""
        "use strict";
        (() => {
          const $ = (selector) => document.querySelector(selector);
          const page = document.body.dataset.page;
          const csrf = $('meta[name="csrf"]')?.content || $('input[name="csrf"]')?.value || "";
          const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
          const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          async function post(path, body) {
            const response = await fetch(path, { method: "POST", credentials: "same-origin", body: JSON.stringify(body),
                                                 headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf } });
            const answer = await response.json().catch(() => ({}));
            if (!response.ok) throw new Error(answer.detail || response.statusText);
            return answer;
          }
          function fail(error) {
            const line = $("#passkey-error");
            line.textContent = error.name === "NotAllowedError" ? "No passkey was given (cancelled, or none of this device's passkeys is for this server)."
              : error.message;
            line.hidden = false;
            document.body.dataset.passkeyState = "failed";
          }
          const passkeys = document.body.dataset.passkeys === "true" && window.PublicKeyCredential;

          if (page === "signin" && passkeys) {
            $("#passkey-signin").hidden = false;
            $("#passkey-button").addEventListener("click", async () => {
              $("#passkey-error").hidden = true;
              try {
                const options = await post("/signin/passkey/options", {});
                const credential = await navigator.credentials.get({ publicKey: { ...options, challenge: bytes(options.challenge) } });
                const r = credential.response;
                const answer = await post("/signin/passkey", {
                  id: credential.id, rawId: text(credential.rawId), type: credential.type, clientDataJSON: text(r.clientDataJSON),
                  authenticatorData: text(r.authenticatorData), signature: text(r.signature), userHandle: r.userHandle ? text(r.userHandle) : "" });
                location.href = answer.location;
              } catch (error) { fail(error); }
            });
          }

          if (page === "account" && passkeys) {
            $("#add-passkey")?.addEventListener("click", async () => {
              $("#passkey-error").hidden = true;
              try {
                const options = await post("/account/passkeys/options", {});
                const credential = await navigator.credentials.create({ publicKey: { ...options, challenge: bytes(options.challenge),
                  user: { ...options.user, id: bytes(options.user.id) },
                  excludeCredentials: options.excludeCredentials.map((c) => ({ ...c, id: bytes(c.id) })) } });
                const r = credential.response;
                const answer = await post("/account/passkeys", {
                  name: $("#passkey-name").value, id: credential.id, rawId: text(credential.rawId), type: credential.type,
                  clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject), userHandle: options.user.id });
                location.href = answer.location;
              } catch (error) { fail(error); }
            });
          }
          if (page === "account") {
            $("#invite-link")?.addEventListener("focus", (event) => event.target.select());
          }

          // An invitation link signs in at once (a link preview that runs no script does not use it up).
          if (page === "invite") $("#accept-form")?.submit();
          document.body.dataset.signinReady = "true";
        })();

        """#
}
