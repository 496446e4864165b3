import ReceiptKit
/// `GET /openapi.yaml`: the OpenAPI 3.1 description of every route, exactly as the server behaves
/// (kept true by `ProtocolRoutesTests.theOpenAPIDocumentDescribesEveryRoute` in ReceiptServerTests and, in `make test`, by
/// schemathesis with every check on: what the document calls valid is accepted, what it does not
/// is refused). The taxonomy's categories and ISO 4217's currencies are listed from the code.
enum OpenAPIDocument {
    static func yaml(taxonomy: Taxonomy) -> String {
        let categories = taxonomy.names.map(quoted).joined(separator: ", ")
        let currencies = Currency.codes.joined(separator: ", ")
        return """
        openapi: 3.1.0
        info:
          title: receipts
          version: "1"
          description: >
            Receipt OCR and parsing over HTTP. Records are the NDJSON records `receipts process` prints;
            errors are RFC 9457 problem documents. Once an API token exists, every /v1 route needs
            `Authorization: Bearer <token>`. A query parameter a route does not take is refused (400).
            A method a path does not serve is answered 405 with `Allow`; OPTIONS is answered 204 with
            `Allow`. While the store cannot be reached (PostgreSQL down), /v1 routes answer 503 with
            `Retry-After` at once; /metrics still serves what this process knows.
            A browser signed in at /signin (the review page) is sent the session cookie
            `receipts_session` instead: every /v1 route takes it where it takes the Bearer token, and a
            change (any method but GET, HEAD, OPTIONS) made with the cookie needs the session's CSRF
            token in `X-CSRF-Token`, an `Origin` (when sent) that is this server's, and no
            `Sec-Fetch-Site: cross-site`, else 403. A request with an `Authorization` header is judged
            by it alone.
            Each /v1 operation names the scope its token needs in `x-required-scope` (read, upload,
            review, admin; admin grants every scope, review grants read too); a token without it is
            answered 403 naming the scope, an expired, unknown or revoked one 401. Each token may send
            so many requests (`receipts serve --rate-limit`, or its own): more are answered 429 with
            `Retry-After`. The review page's session has its token's scopes, expiry and limit.

            Every receipt belongs to a user (its `owner`), at most one group (`group`: its members see
            it, a viewer to read, an editor also to correct, confirm and retry), and for a backend's
            own users an `externalUser` and its `metadata`. A token acts for its user
            (`receipts token create --user`): it sees the user's receipts and their groups' (an
            administrator's, every receipt), and lists, exports and webhooks hold only those.
            Someone else's receipt, expense or webhook is answered 404, as if it did not exist; one the
            token may see but not change (a group's, as a viewer) 403. A token with the `act-as` scope
            (a backend's service token) may send `Receipts-External-User: ID`: the request then acts for
            that end user of its own, uploads are stored with `externalUser` and every read is limited
            to that end user's receipts. The same bytes from two users are two receipts.
        components:
          securitySchemes:
            bearer:
              type: http
              scheme: bearer
              description: >
                A token from `receipts token create`; it acts for its user. Its scopes (read, upload,
                review, admin, act-as) decide which operations it may call: see each operation's
                x-required-scope.
            session:
              type: apiKey
              in: cookie
              name: receipts_session
              description: >
                The review page's session (POST /signin with a token). Changes also need the session's
                CSRF token in X-CSRF-Token and this server's Origin (403 otherwise).
          parameters:
            id:
              name: id
              in: path
              required: true
              schema: {type: string, format: uuid}
            from: {name: from, in: query, description: First receipt date (inclusive), schema: {type: string, format: date}}
            to: {name: to, in: query, description: Last receipt date (inclusive), schema: {type: string, format: date}}
            category: {name: category, in: query, description: A category (case-insensitive), schema: {type: string}}
            expenseStatus: {name: status, in: query, schema: {type: string, enum: [draft, confirmed]}}
            needsReview: {name: needsReview, in: query, description: Only expenses flagged (true) or not flagged (false) for review, schema: {type: boolean}}
            externalUser:
              name: Receipts-External-User
              in: header
              description: >
                For a token with the act-as scope: the end user of the backend the request acts for
                (1 to 64 characters, no control characters, slashes, colons or commas). Any other token
                sending it is answered 403.
              schema: {type: string, minLength: 1, maxLength: 64, pattern: "^[^\\x00-\\x1f\\x7f/:,]+$"}
            externalUserFilter:
              name: externalUser
              in: query
              description: Only the receipts uploaded for this end user of a backend (Receipts-External-User)
              schema: {type: string}
          headers:
            RetryAfter:
              description: Seconds to wait before trying again
              schema: {type: integer}
          responses:
            problem:
              description: An error (RFC 9457)
              content:
                application/problem+json:
                  schema: {$ref: "#/components/schemas/Problem"}
            unauthorized:
              description: No token, or one unknown, revoked or expired
              headers:
                WWW-Authenticate:
                  schema: {type: string}
              content:
                application/problem+json:
                  schema: {$ref: "#/components/schemas/Problem"}
            busy:
              description: Too much at once, or the token's rate limit reached; try again after Retry-After seconds
              headers:
                Retry-After: {$ref: "#/components/headers/RetryAfter"}
              content:
                application/problem+json:
                  schema: {$ref: "#/components/schemas/Problem"}
            unavailable:
              description: The store cannot be reached now; try again after Retry-After seconds
              headers:
                Retry-After: {$ref: "#/components/headers/RetryAfter"}
              content:
                application/problem+json:
                  schema: {$ref: "#/components/schemas/Problem"}
          schemas:
            Problem:
              type: object
              required: [type, title, status, detail]
              properties:
                type: {type: string}
                title: {type: string}
                status: {type: integer}
                detail: {type: string}
            Money:
              description: Exact decimal, printed with at least the currency's minor units (12.50 GBP, 1200 JPY)
              type: [number, "null"]
            MoneyInput:
              description: >
                A JSON number, or a string holding a plain decimal (digits, one optional point, an optional
                leading minus: "12.50"; no exponent, grouping or currency), or null to clear it. At most 12
                digits before the point and 4 after it. Stored exactly as given, never rounded.
              type: [number, string, "null"]
              minimum: -999999999999.9999
              maximum: 999999999999.9999
              multipleOf: 0.0001
              pattern: "\(Money.amountPattern)"
            Analysis:
              type: object
              required: [vendor, date, total, tax, currency, category, lineItems, confidence, analyzer]
              properties:
                vendor: {type: [string, "null"]}
                date: {type: [string, "null"], format: date}
                total: {$ref: "#/components/schemas/Money"}
                tax: {$ref: "#/components/schemas/Money"}
                currency: {type: [string, "null"]}
                category: {type: [string, "null"]}
                lineItems:
                  type: array
                  items:
                    type: object
                    properties:
                      description: {type: string}
                      quantity: {$ref: "#/components/schemas/Money"}
                      unitPrice: {$ref: "#/components/schemas/Money"}
                      amount: {$ref: "#/components/schemas/Money"}
                confidence:
                  type: object
                  properties:
                    needsReview: {type: boolean}
                analyzer: {type: string}
                sources:
                  description: >
                    The words each field was read from (vendor, date, total, tax, currency), each with its
                    box [x, y, width, height] in the pixels of the image OCR ran on (imageWidth × imageHeight;
                    for a PDF, its pages one below the other at one scale, as wide as the widest)
                  type: object
                  properties:
                    imageWidth: {type: integer}
                    imageHeight: {type: integer}
                  additionalProperties:
                    type: array
                    items:
                      type: object
                      properties:
                        text: {type: string}
                        box: {type: array, items: {type: integer}, minItems: 4, maxItems: 4}
            StoredAnalysis:
              description: The analysis of an image stored by `?store=true`, with where it is kept
              allOf:
                - {$ref: "#/components/schemas/Analysis"}
                - type: object
                  required: [receiptId, expenseId]
                  properties:
                    receiptId: {type: string, format: uuid}
                    expenseId: {type: [string, "null"], format: uuid}
            Expense:
              type: object
              required: [id, receiptId, amount, category, status, creationMethod]
              properties:
                id: {type: string, format: uuid}
                receiptId: {type: string, format: uuid}
                date: {type: [string, "null"], format: date}
                amount: {$ref: "#/components/schemas/Money"}
                currency: {type: [string, "null"]}
                taxAmount: {$ref: "#/components/schemas/Money"}
                category: {type: string}
                description: {type: string}
                isTaxDeductible: {type: boolean}
                taxDeductiblePercentage: {type: number}
                creationMethod: {type: string}
                status: {type: string, enum: [draft, confirmed]}
                needsReview: {type: boolean}
                possibleDuplicateOf: {type: [string, "null"]}
                isUploaded: {type: boolean}
                lastModified: {type: string, format: date-time}
                confirmedBy: {type: [string, "null"], description: The user who confirmed it}
            ExpenseWithCorrections:
              type: object
              required: [expense, corrections, history]
              properties:
                expense: {$ref: "#/components/schemas/Expense"}
                corrections:
                  description: What the analyzer had drafted for each field a person corrected
                  type: object
                history:
                  description: Who changed the expense, oldest first
                  type: array
                  items:
                    type: object
                    required: [at, user, token, fields, confirmed]
                    properties:
                      at: {type: string, format: date-time}
                      user: {type: string}
                      token: {type: [string, "null"], description: The API token's name (null on the command line)}
                      fields: {type: array, items: {type: string}}
                      confirmed: {type: boolean}
            Metadata:
              description: >
                An uploader's own data about a receipt (an order, its end user's reference), kept as
                given and returned in records and webhooks: at most \(Ownership.maxMetadataKeys) keys of 1 to
                \(Ownership.maxMetadataKey) characters, each value a string of at most \(Ownership.maxMetadataString)
                characters, a number, true, false or null (at most \(Ownership.maxMetadataBytes) bytes in all).
              type: object
              maxProperties: \(Ownership.maxMetadataKeys)
              propertyNames: {minLength: 1, maxLength: \(Ownership.maxMetadataKey)}
              additionalProperties:
                anyOf:
                  - {type: string, maxLength: \(Ownership.maxMetadataString)}
                  - {type: number, minimum: -1000000000000000, maximum: 1000000000000000}
                  - {type: boolean}
                  - {type: "null"}
            Webhook:
              type: object
              required: [id, url, user, externalUser, createdAt]
              properties:
                id: {type: string, format: uuid}
                url: {type: string}
                user: {type: string}
                externalUser: {type: [string, "null"]}
                createdAt: {type: string, format: date-time}
                secret: {type: string, description: The signing secret, returned once when the server made it}
            Record:
              type: object
              required: [file, receiptId, ocrStatus, analysis, expense, error, attempts, lastError, createdAt, updatedAt]
              properties:
                file: {type: string}
                receiptId: {type: string, format: uuid}
                ocrStatus: {type: string, enum: [pending, processing, completed, failed]}
                analysis:
                  oneOf:
                    - {$ref: "#/components/schemas/Analysis"}
                    - {type: "null"}
                expense:
                  oneOf:
                    - {$ref: "#/components/schemas/Expense"}
                    - {type: "null"}
                error: {type: [string, "null"], description: The one-line error of a receipt that failed for good}
                attempts: {type: integer, description: Times a worker took the receipt}
                lastError: {type: [string, "null"], description: The last failure, also while a retry waits}
                createdAt: {type: [string, "null"], format: date-time}
                updatedAt: {type: [string, "null"], format: date-time}
                owner: {type: string, description: The user the receipt belongs to}
                group: {type: [string, "null"], description: The group that shares it}
                externalUser: {type: [string, "null"], description: The backend's end user it was uploaded for}
                metadata:
                  description: The uploader's metadata, as given
                  oneOf:
                    - {$ref: "#/components/schemas/Metadata"}
                    - {type: "null"}
                source:
                  description: Only for a receipt found in an e-mail message (receipts mail, POST /v1/inbound-email)
                  type: object
                  required: [kind, from, subject, messageId]
                  properties:
                    kind: {type: string, enum: [email]}
                    from: {type: [string, "null"]}
                    subject: {type: [string, "null"]}
                    messageId: {type: [string, "null"]}
            InboundEmail:
              type: object
              required: [messageId, sha256, from, subject, duplicate, receipts]
              additionalProperties: false
              properties:
                messageId: {type: [string, "null"], description: The Message-ID, without angle brackets}
                sha256: {type: string, description: SHA-256 of the raw message, as it is kept}
                from: {type: [string, "null"]}
                subject: {type: [string, "null"]}
                duplicate: {type: boolean, description: The message was stored before}
                receipts:
                  type: array
                  items: {$ref: "#/components/schemas/Record"}
        security:
          - bearer: []
          - session: []
          - {}
        paths:
          /healthz:
            get:
              summary: The process is up
              security: []
              responses:
                "200":
                  description: Up
                  content:
                    application/json:
                      schema: {type: object, properties: {status: {type: string}}}
                "400": {$ref: "#/components/responses/problem"}
          /readyz:
            get:
              summary: The store can be read and the OCR engine runs
              security: []
              responses:
                "200":
                  description: >
                    Ready. With `serve --mail-config`, `mail` lists each mailbox polled: its `state` (starting,
                    ok, failing) and, while failing, the one-line `error` (it is tried again with backoff)
                  content:
                    application/json:
                      schema: {type: object}
                "400": {$ref: "#/components/responses/problem"}
                "503": {$ref: "#/components/responses/unavailable"}
          /metrics:
            get:
              summary: Prometheus text metrics (receipts by status, queue depth, store up, HTTP requests and latency)
              security: []
              responses:
                "200":
                  description: Prometheus text format 0.0.4 (without the store's gauges while it cannot be read)
                  content:
                    text/plain:
                      schema: {type: string}
                "400": {$ref: "#/components/responses/problem"}
          /openapi.yaml:
            get:
              summary: This document
              security: []
              responses:
                "200":
                  description: OpenAPI 3.1 YAML
                  content:
                    application/yaml:
                      schema: {type: string}
                "400": {$ref: "#/components/responses/problem"}
          /v1/receipts:
            post:
              summary: Upload a receipt (image or PDF)
              x-required-scope: upload
              description: >
                The bytes as the body (image/* or application/pdf; named by ?filename= or by
                Content-Disposition's filename), or the `file` part of multipart/form-data (other parts
                are ignored; two `file` parts are refused). The same bytes return the same receipt (a
                failed one is tried again). An Idempotency-Key stands for one image: sent again with it,
                the same receipt; with other bytes, 422 and nothing is stored (each user has keys of their
                own). The receipt is the token's user's (for the end user named by
                Receipts-External-User), shared with `group` when given (a group the user edits: 404 for
                one they are not in, 403 for one they only view), else with the user's default group.
                A body over --max-upload-mb is answered 413 with `Connection: close`.
              parameters:
                - {$ref: "#/components/parameters/externalUser"}
                - name: group
                  in: query
                  description: Share the receipt with this group
                  schema: {type: string}
                - name: metadata
                  in: query
                  description: The uploader's own data (see Metadata), returned verbatim in records and webhooks
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Metadata"}
                - name: wait
                  in: query
                  description: Seconds to wait for the result (more than the server's `--max-wait`, 30 by default, waits that long)
                  schema: {type: number, minimum: 0}
                - name: filename
                  in: query
                  description: The receipt's file name (its last path component is kept, at most 255 characters)
                  schema: {type: string}
                - name: Idempotency-Key
                  in: header
                  schema: {type: string, minLength: 1, maxLength: 200}
              requestBody:
                required: true
                content:
                  image/*:
                    schema: {type: string, format: binary}
                  application/pdf:
                    schema: {type: string, format: binary}
                  multipart/form-data:
                    schema:
                      type: object
                      required: [file]
                      properties:
                        file: {type: string, format: binary}
                        metadata: {$ref: "#/components/schemas/Metadata"}
                    encoding:
                      file:
                        contentType: image/jpeg, image/png, image/gif, image/webp, image/tiff, image/bmp, image/heic, image/avif, application/pdf
                      metadata:
                        contentType: application/json
              responses:
                "200":
                  description: The finished record (done within wait, or already known)
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Record"}
                "202":
                  description: Accepted; the record is at Location
                  headers:
                    Location:
                      schema: {type: string}
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "413": {$ref: "#/components/responses/problem"}
                "415": {$ref: "#/components/responses/problem"}
                "422": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
            get:
              summary: List the receipts the token may see, newest first
              x-required-scope: read
              parameters:
                - {$ref: "#/components/parameters/externalUser"}
                - {$ref: "#/components/parameters/externalUserFilter"}
                - name: owner
                  in: query
                  description: Only this user's receipts
                  schema: {type: string}
                - name: status
                  in: query
                  schema: {type: string, enum: [pending, processing, completed, failed]}
                - name: needsReview
                  in: query
                  description: Only receipts whose expense is flagged for review (true), or the others (false)
                  schema: {type: boolean}
                - name: limit
                  in: query
                  schema: {type: integer, minimum: 1, maximum: 500}
                - name: after
                  in: query
                  description: The `next` of the previous page (404 when that receipt is gone)
                  schema: {type: string, format: uuid}
              responses:
                "200":
                  description: A page of records
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [receipts, next]
                        properties:
                          receipts:
                            type: array
                            items: {$ref: "#/components/schemas/Record"}
                          next: {type: [string, "null"]}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/receipts/{id}:
            get:
              summary: One receipt's record
              x-required-scope: read
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              responses:
                "200":
                  description: The record
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
            delete:
              summary: Delete the receipt, its image copy and its expense
              x-required-scope: admin
              description: >
                A receipt whose expense is confirmed (a person's record) is kept and 409 answered,
                unless force=true.
              parameters:
                - {$ref: "#/components/parameters/id"}
                - {$ref: "#/components/parameters/externalUser"}
                - name: force
                  in: query
                  description: Delete even a receipt whose expense is confirmed
                  schema: {type: boolean}
              responses:
                "204": {description: Deleted}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "409": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/receipts/{id}/image:
            get:
              summary: The image as uploaded
              x-required-scope: read
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              responses:
                "200":
                  description: The bytes
                  content:
                    "*/*":
                      schema: {type: string, format: binary}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/receipts/{id}/pages/{page}:
            get:
              summary: One page of a PDF receipt as a picture
              x-required-scope: read
              description: >
                Page `page` (from 1) of a receipt stored as a PDF, rendered in colour at 300 dpi or
                less so that its long side is at most 2400 pixels; `X-Page-Count` says how many pages
                the PDF has. 404 for a page the PDF does not have and for a receipt that is an image
                (its picture is /v1/receipts/{id}/image); 422 for a PDF that cannot be rendered
                (broken, encrypted, more pages than --max-pdf-pages).
              parameters:
                - {$ref: "#/components/parameters/id"}
                - {$ref: "#/components/parameters/externalUser"}
                - name: page
                  in: path
                  required: true
                  schema: {type: integer, minimum: 1, maximum: 10000}
                - name: format
                  in: query
                  description: The picture's format (png when not given)
                  schema: {type: string, enum: [png, jpeg]}
              responses:
                "200":
                  description: The page
                  headers:
                    X-Page-Count:
                      description: The number of pages of the PDF
                      schema: {type: integer}
                    Cache-Control:
                      schema: {type: string}
                  content:
                    image/png:
                      schema: {type: string, format: binary}
                    image/jpeg:
                      schema: {type: string, format: binary}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "422": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/receipts/{id}/thumbnail:
            get:
              summary: A small picture of the receipt
              x-required-scope: read
              description: >
                A JPEG at most 320 pixels on its long side, upright, of any stored format (a PDF's
                first page); made once and kept in the server's memory. 422 for an image that cannot
                be decoded. An e-receipt (an e-mail's body read as rows) is an SVG of its rows.
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              responses:
                "200":
                  description: The thumbnail
                  headers:
                    Cache-Control:
                      schema: {type: string}
                  content:
                    image/jpeg:
                      schema: {type: string, format: binary}
                    image/svg+xml:
                      schema: {type: string}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "422": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/receipts/{id}/retry:
            post:
              summary: Put a failed receipt back in the queue
              x-required-scope: review
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              responses:
                "202":
                  description: Queued again
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "409": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/expenses:
            get:
              summary: Drafted and confirmed expenses, by date
              x-required-scope: read
              parameters:
                - {$ref: "#/components/parameters/from"}
                - {$ref: "#/components/parameters/to"}
                - {$ref: "#/components/parameters/category"}
                - {$ref: "#/components/parameters/expenseStatus"}
                - {$ref: "#/components/parameters/needsReview"}
                - {$ref: "#/components/parameters/externalUser"}
                - {$ref: "#/components/parameters/externalUserFilter"}
                - name: limit
                  in: query
                  schema: {type: integer, minimum: 1, maximum: 500}
                - name: after
                  in: query
                  description: The `next` of the previous page (404 when that expense is gone)
                  schema: {type: string, format: uuid}
              responses:
                "200":
                  description: A page of expenses
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [expenses, next]
                        properties:
                          expenses:
                            type: array
                            items: {$ref: "#/components/schemas/Expense"}
                          next: {type: [string, "null"]}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/expenses/export.csv:
            get:
              summary: The expenses as CSV (what `receipts export --format csv` prints)
              x-required-scope: read
              description: >
                Columns: date, vendor, category, amount, currency, taxAmount, taxDeductiblePercentage,
                deductibleAmount (0 when isTaxDeductible is false), status, needsReview,
                possibleDuplicateOf, receiptFile, receiptId, expenseId, isTaxDeductible, corrections,
                owner, confirmedBy.
              parameters:
                - {$ref: "#/components/parameters/from"}
                - {$ref: "#/components/parameters/to"}
                - {$ref: "#/components/parameters/category"}
                - {$ref: "#/components/parameters/expenseStatus"}
                - {$ref: "#/components/parameters/needsReview"}
                - {$ref: "#/components/parameters/externalUser"}
                - {$ref: "#/components/parameters/externalUserFilter"}
              responses:
                "200":
                  description: CSV, a header row then one row per expense
                  content:
                    text/csv:
                      schema: {type: string}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/expenses/{id}:
            get:
              summary: One expense and its corrections
              x-required-scope: read
              description: The `ETag` header is the version to send as `If-Match` with a correction.
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              responses:
                "200":
                  description: The expense and what the analyzer had drafted for each corrected field
                  headers:
                    ETag:
                      schema: {type: string}
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/ExpenseWithCorrections"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
            patch:
              summary: Correct fields of an expense and confirm it
              x-required-scope: review
              description: >
                What the analyzer drafted for each corrected field is kept in `corrections`.
                `status: confirmed` marks the expense reviewed. A category is one of the taxonomy's
                (case-insensitive); a new category brings its deduction (isTaxDeductible,
                taxDeductiblePercentage) unless the same request sets it; a percentage given alone makes
                the expense deductible when it is above 0. A currency is an ISO 4217 code. Send the
                `ETag` of `GET /v1/expenses/{id}` as `If-Match` to save only over that version (412
                when another correction came first); without it the change applies to the expense as
                stored.
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        date: {type: [string, "null"], format: date}
                        amount: {$ref: "#/components/schemas/MoneyInput"}
                        taxAmount: {$ref: "#/components/schemas/MoneyInput"}
                        currency: {type: [string, "null"], enum: [\(currencies), null]}
                        category: {type: string, enum: [\(categories)]}
                        description: {type: string, minLength: 1, maxLength: \(ExpenseCorrection.maximumDescriptionLength), pattern: "[^ \\\\t\\\\r\\\\n]"}
                        vendor:
                          description: The vendor (the same as description, by the name the record's analysis uses)
                          type: string
                          minLength: 1
                          maxLength: \(ExpenseCorrection.maximumDescriptionLength)
                          pattern: "[^ \\\\t\\\\r\\\\n]"
                        isTaxDeductible: {type: boolean}
                        taxDeductiblePercentage:
                          type: [number, string]
                          minimum: 0
                          maximum: 100
                          multipleOf: 0.0001
                          pattern: "^(100([.]0{1,4})?|[0-9]{1,2}([.][0-9]{1,4})?)$"
                        status: {type: string, enum: [draft, confirmed]}
              responses:
                "200":
                  description: The expense as corrected, and what the analyzer had drafted (ETag is its new version)
                  headers:
                    ETag:
                      schema: {type: string}
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/ExpenseWithCorrections"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "409": {$ref: "#/components/responses/problem"}
                "412": {$ref: "#/components/responses/problem"}
                "413": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/analyze:
            post:
              summary: Analyze one image synchronously; nothing is stored unless store=true
              x-required-scope: upload
              description: >
                `image` is the image's bytes in base64 (standard or URL-safe, padded or not) or a
                `data:image/…;base64,…` URL. At most one image per OCR thread is analyzed at once, within
                --max-pixels of decoded images: others are answered 429 with Retry-After.
              parameters:
                - {$ref: "#/components/parameters/externalUser"}
                - name: store
                  in: query
                  description: Also store the receipt and its draft expense (its record is at Location)
                  schema: {type: boolean}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [image]
                      additionalProperties: false
                      properties:
                        image:
                          type: string
                          contentEncoding: base64
                          description: The image's bytes in base64 (standard or URL-safe, padded or not), or a data URL
                          pattern: "^(data:[^,;]*;base64,)?(([A-Za-z0-9+/_-]{4})+([A-Za-z0-9+/_-]{2}(==)?|[A-Za-z0-9+/_-]{3}=?)?|[A-Za-z0-9+/_-]{2}(==)?|[A-Za-z0-9+/_-]{3}=?)$"
                        mimeType: {type: string}
              responses:
                "200":
                  description: The analysis (with receiptId and expenseId when stored)
                  content:
                    application/json:
                      schema:
                        anyOf:
                          - {$ref: "#/components/schemas/StoredAnalysis"}
                          - {$ref: "#/components/schemas/Analysis"}
                "202":
                  description: Stored (store=true) but not read within 30 s; the record is at Location
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "413": {$ref: "#/components/responses/problem"}
                "415": {$ref: "#/components/responses/problem"}
                "422": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/inbound-email:
            post:
              summary: File a forwarded e-mail (a raw RFC 822 message, as mail providers' inbound webhooks send it)
              x-required-scope: upload
              description: >
                The body is the whole message (`Content-Type: message/rfc822`). It is filed as a message read
                from a mailbox is (see docs/email.md): kept whole, each PDF or image attachment (by its
                bytes) a receipt, else its HTML body read exactly as an e-receipt; a message with nothing
                usable becomes a failed receipt naming its subject and sender. Answered only once the
                message and its receipts are stored (pending): 201 for a new message, 200 for one stored
                before (the same bytes, or the same Message-ID), with its receipts' records. A body that is
                not a message is answered 422 and nothing is stored.
              parameters: [{$ref: "#/components/parameters/externalUser"}]
              requestBody:
                required: true
                content:
                  message/rfc822:
                    schema: {type: string, format: binary}
              responses:
                "200":
                  description: The message was stored before; its receipts
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/InboundEmail"}
                "201":
                  description: The message is stored, its receipts pending (or known)
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/InboundEmail"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "413": {$ref: "#/components/responses/problem"}
                "415": {$ref: "#/components/responses/problem"}
                "422": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/me:
            get:
              summary: Who the token acts for
              x-required-scope: read
              parameters: [{$ref: "#/components/parameters/externalUser"}]
              responses:
                "200":
                  description: The token's user, their groups and roles, the end user named, the token's scopes
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [user, admin, defaultGroup, groups, externalUser, token, scopes]
                        properties:
                          user: {type: string}
                          admin: {type: boolean}
                          defaultGroup: {type: [string, "null"]}
                          groups:
                            type: array
                            items:
                              type: object
                              properties:
                                name: {type: string}
                                role: {type: string, enum: [viewer, editor]}
                          externalUser: {type: [string, "null"]}
                          token: {type: [string, "null"]}
                          scopes: {type: array, items: {type: string}}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/webhooks:
            get:
              summary: The token's user's own webhooks (for the end user named, that end user's)
              x-required-scope: read
              parameters: [{$ref: "#/components/parameters/externalUser"}]
              responses:
                "200":
                  description: The webhooks (never their secrets)
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [webhooks]
                        properties:
                          webhooks: {type: array, items: {$ref: "#/components/schemas/Webhook"}}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
            post:
              summary: Add a webhook of the token's user
              x-required-scope: read
              description: >
                From now on each receipt the user may see (with Receipts-External-User: that end user's)
                that completes or fails for good is POSTed to `url` as its record, with the headers of
                the server-wide webhook (Receipts-Signature: HMAC-SHA256 with `secret`,
                Receipts-Delivery-Id, Receipts-Event), at least once, retried with backoff. Without a
                `secret` the server makes one and returns it once.
              parameters: [{$ref: "#/components/parameters/externalUser"}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [url]
                      additionalProperties: false
                      properties:
                        url: {type: string, format: uri, maxLength: 2048, pattern: "^[hH][tT][tT][pP][sS]?://[^/?#:@ ]+"}
                        secret: {type: string, minLength: 16, maxLength: 256}
              responses:
                "201":
                  description: Added; it is at Location
                  headers:
                    Location:
                      schema: {type: string}
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Webhook"}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "413": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}
          /v1/webhooks/{id}:
            delete:
              summary: Remove a webhook of the token's user
              x-required-scope: read
              parameters: [{$ref: "#/components/parameters/id"}, {$ref: "#/components/parameters/externalUser"}]
              responses:
                "204": {description: Removed; its events not delivered yet are dropped}
                "400": {$ref: "#/components/responses/problem"}
                "401": {$ref: "#/components/responses/unauthorized"}
                "403": {$ref: "#/components/responses/problem"}
                "404": {$ref: "#/components/responses/problem"}
                "429": {$ref: "#/components/responses/busy"}
                "503": {$ref: "#/components/responses/unavailable"}

        """
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
