package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"sort"
	"sync"

	"example.com/zoo/go-ogen/api"
)

// petHandler implements api.Handler with the animals kept in memory.
type petHandler struct {
	mu     sync.RWMutex
	nextID int64
	pets   map[int64]api.Pet
}

var _ api.Handler = (*petHandler)(nil)

func newPetHandler() *petHandler {
	return &petHandler{nextID: 1, pets: map[int64]api.Pet{}}
}

// ListPets implements listPets: GET /pets.
func (h *petHandler) ListPets(ctx context.Context, params api.ListPetsParams) (api.ListPetsRes, error) {
	limit := params.Limit.Or(20)
	status, filter := params.Status.Get()

	h.mu.RLock()
	defer h.mu.RUnlock()
	pets := api.Pets{}
	for _, p := range h.pets {
		if filter && p.Status.Or("") != status {
			continue
		}
		pets = append(pets, p)
	}
	sort.Slice(pets, func(i, j int) bool { return pets[i].ID < pets[j].ID })
	if len(pets) > limit {
		pets = pets[:limit]
	}
	return &pets, nil
}

// CreatePet implements createPet: POST /pets.
func (h *petHandler) CreatePet(ctx context.Context, req *api.NewPet) (api.CreatePetRes, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pet := api.Pet{
		ID:         h.nextID,
		Name:       req.Name,
		CategoryId: req.CategoryId,
		Status:     req.Status,
	}
	h.pets[pet.ID] = pet
	h.nextID++
	return &pet, nil
}

// GetPet implements getPet: GET /pets/{petId} (deprecated, removed on 5 December 2030).
func (h *petHandler) GetPet(ctx context.Context, params api.GetPetParams) (api.GetPetRes, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	pet, ok := h.pets[params.PetId]
	if !ok {
		return &api.GetPetNotFound{
			Code:    "not_found",
			Message: fmt.Sprintf("pet %d not found", params.PetId),
			Status:  404,
		}, nil
	}
	return &pet, nil
}

var errInvalidKey = errors.New("invalid API key")

// securityHandler checks the bearer token against the configured API key.
type securityHandler struct {
	apiKey string
}

func (s securityHandler) HandleBearerAuth(ctx context.Context, operationName api.OperationName, t api.BearerAuth) (context.Context, error) {
	if subtle.ConstantTimeCompare([]byte(t.Token), []byte(s.apiKey)) != 1 {
		return ctx, errInvalidKey
	}
	return ctx, nil
}
