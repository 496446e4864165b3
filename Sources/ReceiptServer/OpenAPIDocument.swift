/// `GET /openapi.yaml`: the OpenAPI 3.1 description of every route (kept true by
/// `ServeCommandTests.theOpenAPIDocumentDescribesEveryRoute` and, in `make test`, by schemathesis).
enum OpenAPIDocument {
    static let yaml = """
    openapi: 3.1.0
    info:
      title: receipts
      version: "1"
      description: >
        Receipt OCR and parsing over HTTP. Records are the NDJSON records `receipts process` prints;
        errors are RFC 9457 problem documents. Once an API token exists, every /v1 route needs
        `Authorization: Bearer <token>`.
    components:
      securitySchemes:
        bearer:
          type: http
          scheme: bearer
      parameters:
        id:
          name: id
          in: path
          required: true
          schema: {type: string}
      responses:
        problem:
          description: An error (RFC 9457)
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
          type: [number, "null"]
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
        Expense:
          type: object
          required: [id, receiptId, amount, category, status, creationMethod]
          properties:
            id: {type: string}
            receiptId: {type: string}
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
        Record:
          type: object
          required: [file, receiptId, ocrStatus, analysis, expense, error]
          properties:
            file: {type: string}
            receiptId: {type: string}
            ocrStatus: {type: string, enum: [pending, processing, completed, failed]}
            analysis:
              oneOf:
                - {$ref: "#/components/schemas/Analysis"}
                - {type: "null"}
            expense:
              oneOf:
                - {$ref: "#/components/schemas/Expense"}
                - {type: "null"}
            error: {type: [string, "null"]}
    security:
      - bearer: []
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
      /readyz:
        get:
          summary: The store can be read
          security: []
          responses:
            "200":
              description: Ready
              content:
                application/json:
                  schema: {type: object}
            "503": {$ref: "#/components/responses/problem"}
      /metrics:
        get:
          summary: Prometheus text metrics (receipts by status, queue depth, HTTP requests and latency)
          security: []
          responses:
            "200":
              description: Prometheus text format 0.0.4
              content:
                text/plain:
                  schema: {type: string}
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
      /v1/receipts:
        post:
          summary: Upload a receipt (image or PDF)
          description: >
            The bytes as the body (image/* or application/pdf), or the `file` part of
            multipart/form-data. The same bytes, or the same Idempotency-Key, return the same
            receipt (a failed one is tried again).
          parameters:
            - name: wait
              in: query
              description: Seconds to wait for the result (at most 30)
              schema: {type: number, minimum: 0}
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
                  properties:
                    file: {type: string, format: binary}
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
            "401": {$ref: "#/components/responses/problem"}
            "413": {$ref: "#/components/responses/problem"}
            "415": {$ref: "#/components/responses/problem"}
            "422": {$ref: "#/components/responses/problem"}
            "429":
              description: Too many receipts waiting (--max-pending); try again after Retry-After seconds
              headers:
                Retry-After:
                  schema: {type: integer}
              content:
                application/problem+json:
                  schema: {$ref: "#/components/schemas/Problem"}
        get:
          summary: List receipts, newest first
          parameters:
            - name: status
              in: query
              schema: {type: string, enum: [pending, processing, completed, failed]}
            - name: limit
              in: query
              schema: {type: integer, minimum: 1, maximum: 500}
            - name: after
              in: query
              description: The `next` of the previous page
              schema: {type: string}
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
            "401": {$ref: "#/components/responses/problem"}
      /v1/receipts/{id}:
        get:
          summary: One receipt's record
          parameters: [{$ref: "#/components/parameters/id"}]
          responses:
            "200":
              description: The record
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Record"}
            "401": {$ref: "#/components/responses/problem"}
            "404": {$ref: "#/components/responses/problem"}
        delete:
          summary: Delete the receipt, its image copy and its draft expense
          parameters: [{$ref: "#/components/parameters/id"}]
          responses:
            "204": {description: Deleted}
            "401": {$ref: "#/components/responses/problem"}
            "404": {$ref: "#/components/responses/problem"}
      /v1/receipts/{id}/image:
        get:
          summary: The image as uploaded
          parameters: [{$ref: "#/components/parameters/id"}]
          responses:
            "200":
              description: The bytes
              content:
                "*/*":
                  schema: {type: string, format: binary}
            "401": {$ref: "#/components/responses/problem"}
            "404": {$ref: "#/components/responses/problem"}
      /v1/receipts/{id}/retry:
        post:
          summary: Put a failed receipt back in the queue
          parameters: [{$ref: "#/components/parameters/id"}]
          responses:
            "202":
              description: Queued again
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Record"}
            "401": {$ref: "#/components/responses/problem"}
            "404": {$ref: "#/components/responses/problem"}
            "409": {$ref: "#/components/responses/problem"}
      /v1/expenses:
        get:
          summary: Drafted and confirmed expenses
          parameters:
            - {name: from, in: query, schema: {type: string, format: date}}
            - {name: to, in: query, schema: {type: string, format: date}}
            - {name: category, in: query, schema: {type: string}}
            - {name: status, in: query, schema: {type: string, enum: [draft, confirmed]}}
          responses:
            "200":
              description: Expenses
              content:
                application/json:
                  schema:
                    type: object
                    required: [expenses]
                    properties:
                      expenses:
                        type: array
                        items: {$ref: "#/components/schemas/Expense"}
            "400": {$ref: "#/components/responses/problem"}
            "401": {$ref: "#/components/responses/problem"}
      /v1/expenses/export.csv:
        get:
          summary: The expenses as CSV (the columns of `receipts export --format csv`)
          parameters:
            - {name: from, in: query, schema: {type: string, format: date}}
            - {name: to, in: query, schema: {type: string, format: date}}
            - {name: category, in: query, schema: {type: string}}
            - {name: status, in: query, schema: {type: string, enum: [draft, confirmed]}}
          responses:
            "200":
              description: CSV, a header row then one row per expense
              content:
                text/csv:
                  schema: {type: string}
            "400": {$ref: "#/components/responses/problem"}
            "401": {$ref: "#/components/responses/problem"}
      /v1/expenses/{id}:
        patch:
          summary: Correct fields of a drafted expense and confirm it
          description: >
            What the analyzer drafted for each corrected field is kept in `corrections`.
            `status: confirmed` marks the expense reviewed.
          parameters: [{$ref: "#/components/parameters/id"}]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  additionalProperties: false
                  properties:
                    date: {type: [string, "null"], format: date}
                    amount: {type: [number, string, "null"]}
                    taxAmount: {type: [number, string, "null"]}
                    currency: {type: [string, "null"]}
                    category: {type: string, minLength: 1}
                    description: {type: string, minLength: 1}
                    isTaxDeductible: {type: boolean}
                    taxDeductiblePercentage: {type: number, minimum: 0, maximum: 100}
                    status: {type: string, enum: [draft, confirmed]}
          responses:
            "200":
              description: The expense as corrected, and what the analyzer had drafted
              content:
                application/json:
                  schema:
                    type: object
                    required: [expense, corrections]
                    properties:
                      expense: {$ref: "#/components/schemas/Expense"}
                      corrections: {type: object}
            "400": {$ref: "#/components/responses/problem"}
            "401": {$ref: "#/components/responses/problem"}
            "404": {$ref: "#/components/responses/problem"}
      /v1/analyze:
        post:
          summary: Analyze one image synchronously; nothing is stored unless store=true
          parameters:
            - name: store
              in: query
              description: Also store the receipt and its draft expense (its record is at Location)
              schema: {type: string, enum: ["true", "false"]}
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  required: [image]
                  properties:
                    image: {type: string, description: base64 bytes}
                    mimeType: {type: string}
          responses:
            "200":
              description: The analysis
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Analysis"}
            "202":
              description: Stored (store=true) but not read within 30 s; the record is at Location
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Record"}
            "400": {$ref: "#/components/responses/problem"}
            "401": {$ref: "#/components/responses/problem"}
            "413": {$ref: "#/components/responses/problem"}
            "415": {$ref: "#/components/responses/problem"}
            "422": {$ref: "#/components/responses/problem"}

    """
}
