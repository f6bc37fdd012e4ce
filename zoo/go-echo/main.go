// Command go-echo serves the pet store interface (version 1.0.0) on echo v4.
//
// It listens on 127.0.0.1:$PORT and accepts the key from $API_KEY as
// "Authorization: Bearer <key>". Animals are kept in memory.
package main

import (
	"crypto/subtle"
	"fmt"
	"log"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// NewPet is the request body of POST /pets.
type NewPet struct {
	Name       string `json:"name" validate:"required"`
	CategoryID int64  `json:"categoryId" validate:"required"`
	Status     string `json:"status,omitempty" validate:"omitempty,oneof=available pending sold"`
}

// Pet is an animal as returned by the service.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Error is the body of every error response.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

type listParams struct {
	Limit  int    `query:"limit" validate:"min=1,max=100"`
	Status string `query:"status" validate:"omitempty,oneof=available pending sold"`
}

// store keeps the animals in memory.
type store struct {
	mu     sync.RWMutex
	nextID int64
	pets   map[int64]Pet
}

func newStore() *store {
	return &store{nextID: 1, pets: map[int64]Pet{}}
}

func (s *store) add(np NewPet) Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Pet{ID: s.nextID, Name: np.Name, CategoryID: np.CategoryID, Status: np.Status}
	s.pets[p.ID] = p
	s.nextID++
	return p
}

func (s *store) get(id int64) (Pet, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.pets[id]
	return p, ok
}

func (s *store) list(status string, limit int) []Pet {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Pet, 0, len(s.pets))
	for _, p := range s.pets {
		if status != "" && p.Status != status {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// CustomValidator plugs go-playground/validator into echo (c.Validate).
type CustomValidator struct {
	validator *validator.Validate
}

func (cv *CustomValidator) Validate(i interface{}) error {
	if err := cv.validator.Struct(i); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	return nil
}

// errorHandler renders every error as the interface's Error record.
func errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	he, ok := err.(*echo.HTTPError)
	if ok {
		if inner, ok := he.Internal.(*echo.HTTPError); ok {
			he = inner
		}
	} else {
		c.Logger().Error(err)
		he = echo.NewHTTPError(http.StatusInternalServerError, http.StatusText(http.StatusInternalServerError))
	}
	msg := fmt.Sprint(he.Message)
	if m, ok := he.Message.(error); ok {
		msg = m.Error()
	}
	body := Error{
		Code:    strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_"),
		Message: msg,
		Status:  he.Code,
	}
	if err := c.JSON(he.Code, body); err != nil {
		c.Logger().Error(err)
	}
}

type server struct {
	store *store
}

func (s *server) listPets(c echo.Context) error {
	p := listParams{Limit: 20}
	if err := c.Bind(&p); err != nil {
		return err
	}
	if err := c.Validate(&p); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.store.list(p.Status, p.Limit))
}

func (s *server) createPet(c echo.Context) error {
	var np NewPet
	if err := c.Bind(&np); err != nil {
		return err
	}
	if err := c.Validate(&np); err != nil {
		return err
	}
	pet := s.store.add(np)
	return c.JSON(http.StatusCreated, pet)
}

// getPet is deprecated: removed on 5 December 2030, replaced by listPets.
func (s *server) getPet(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("petId"), 10, 64)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "petId must be an integer")
	}
	c.Response().Header().Set("Sunset", "Thu, 05 Dec 2030 00:00:00 GMT")
	pet, ok := s.store.get(id)
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("pet %d not found", id))
	}
	return c.JSON(http.StatusOK, pet)
}

func main() {
	apiKey := os.Getenv("API_KEY")
	if apiKey == "" {
		log.Fatal("API_KEY must be set")
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}

	e := echo.New()
	e.HTTPErrorHandler = errorHandler
	e.Validator = &CustomValidator{validator: validator.New()}
	e.Use(middleware.RequestLogger())
	e.Use(middleware.Recover())

	s := &server{store: newStore()}

	v1 := e.Group("/v1")
	v1.Use(middleware.KeyAuth(func(key string, c echo.Context) (bool, error) {
		return subtle.ConstantTimeCompare([]byte(key), []byte(apiKey)) == 1, nil
	}))
	v1.GET("/pets", s.listPets)
	v1.POST("/pets", s.createPet)
	v1.GET("/pets/:petId", s.getPet)

	e.Logger.Fatal(e.Start("127.0.0.1:" + port))
}
