// Security handlers for the securitySchemes in openapi.yaml.
// fastify-openapi-glue calls the method named after the scheme; returning
// means authenticated, throwing means rejected (401 by default).

import { timingSafeEqual } from "node:crypto";

export class Security {
	constructor(apiKey) {
		this.apiKey = Buffer.from(apiKey);
	}

	// Security scheme: bearerAuth (type: http, scheme: bearer)
	async bearerAuth(req, _reply, _params) {
		const header = req.headers.authorization ?? "";
		const match = /^Bearer (.+)$/i.exec(header);
		const token = match ? Buffer.from(match[1]) : Buffer.alloc(0);
		if (
			token.length !== this.apiKey.length ||
			!timingSafeEqual(token, this.apiKey)
		) {
			const err = new Error("Missing or invalid API key");
			err.statusCode = 401;
			throw err;
		}
	}
}
