<?php

namespace App\Controller;

use App\Repository\PetRepository;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpKernel\Exception\BadRequestHttpException;
use Symfony\Component\HttpKernel\Exception\NotFoundHttpException;

class PetController
{
    public const STATUSES = ['available', 'pending', 'sold'];

    private $pets;

    public function __construct(PetRepository $pets)
    {
        $this->pets = $pets;
    }

    /** GET /v1/pets (listPets) */
    public function list(Request $request): JsonResponse
    {
        $limit = $request->query->get('limit', 20);
        $limit = filter_var($limit, FILTER_VALIDATE_INT, ['options' => ['min_range' => 1, 'max_range' => 100]]);
        if (false === $limit) {
            throw new BadRequestHttpException('limit must be an integer between 1 and 100');
        }

        $status = $request->query->get('status');
        if (null !== $status && !\in_array($status, self::STATUSES, true)) {
            throw new BadRequestHttpException('status must be one of: '.implode(', ', self::STATUSES));
        }

        return new JsonResponse($this->pets->findAll($limit, $status));
    }

    /** POST /v1/pets (createPet) */
    public function create(Request $request): JsonResponse
    {
        try {
            $data = $request->toArray();
        } catch (\Symfony\Component\HttpFoundation\Exception\JsonException $e) {
            throw new BadRequestHttpException('Request body must be a JSON object: '.$e->getMessage());
        }

        if (!isset($data['name']) || !\is_string($data['name']) || '' === trim($data['name'])) {
            throw new BadRequestHttpException('name is required and must be a non-empty string');
        }
        if (!isset($data['categoryId']) || !\is_int($data['categoryId'])) {
            throw new BadRequestHttpException('categoryId is required and must be an integer');
        }
        $status = $data['status'] ?? null;
        if (null !== $status && !\in_array($status, self::STATUSES, true)) {
            throw new BadRequestHttpException('status must be one of: '.implode(', ', self::STATUSES));
        }

        $pet = $this->pets->add($data['name'], $data['categoryId'], $status);

        return new JsonResponse($pet, JsonResponse::HTTP_CREATED);
    }

    /** GET /v1/pets/{petId} (getPet, deprecated) */
    public function show(string $petId): JsonResponse
    {
        $pet = $this->pets->find((int) $petId);
        if (null === $pet) {
            throw new NotFoundHttpException(sprintf('Pet %s not found', $petId));
        }

        return new JsonResponse($pet);
    }
}
