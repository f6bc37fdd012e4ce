// Pet store service: fastify + fastify-openapi-glue, spec-first from openapi.yaml.
import path from "node:path";
import Fastify from "fastify";
import openapiGlue from "fastify-openapi-glue";
import { Service } from "./service.js";
import { Security } from "./security.js";

const port = Number.parseInt(process.env.PORT ?? "3000", 10);
const apiKey = process.env.API_KEY;
if (!apiKey) {
	console.error("API_KEY must be set");
	process.exit(1);
}

const fastify = Fastify({ logger: true });

fastify.register(openapiGlue, {
	specification: path.join(import.meta.dirname, "openapi.yaml"),
	serviceHandlers: new Service(),
	securityHandlers: new Security(apiKey),
	prefix: "v1",
});

try {
	await fastify.listen({ host: "127.0.0.1", port });
} catch (err) {
	fastify.log.error(err);
	process.exit(1);
}
