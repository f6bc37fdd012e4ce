// Service handlers for the pet store; method names match the operationIds
// in openapi.yaml (fastify-openapi-glue maps operationId -> method).
// The store is in memory and is lost on restart.

export class Service {
	constructor() {
		this.pets = new Map();
		this.nextId = 1;
	}

	// GET /pets
	async listPets(req, _reply) {
		const { limit = 20, status } = req.query;
		const result = [];
		for (const pet of this.pets.values()) {
			if (status !== undefined && pet.status !== status) continue;
			result.push(pet);
			if (result.length >= limit) break;
		}
		return result;
	}

	// POST /pets
	async createPet(req, reply) {
		const { name, categoryId, status } = req.body;
		const pet = { id: this.nextId++, name, categoryId };
		if (status !== undefined) pet.status = status;
		this.pets.set(pet.id, pet);
		reply.code(201);
		return pet;
	}

	// GET /pets/{petId} (deprecated, removal on 5 December 2030)
	async getPet(req, reply) {
		const pet = this.pets.get(req.params.petId);
		if (!pet) {
			reply.code(404);
			return {
				code: "not_found",
				message: `Pet ${req.params.petId} not found`,
				status: 404,
			};
		}
		return pet;
	}
}
