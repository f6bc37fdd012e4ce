// Package naive is a pet store client written the way many are, and wrong in the ways the
// interface document allows a server to expose: it reads ids as float64 (as JavaScript
// does), takes the last animal of a listing for the newest, and sends a request again at
// once when the server asks it to wait. Against the plain reference it works; against
// petstore serve --vary it breaks, and its tests say why (naive_test.go).
package naive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Pet is an animal as this client reads it: every number a float64.
type Pet struct {
	ID         float64 `json:"id"`
	Name       string  `json:"name"`
	CategoryID float64 `json:"categoryId"`
	Status     string  `json:"status,omitempty"`
}

// Client calls the interface at BaseURL (ending in /v1) with Key.
type Client struct {
	BaseURL, Key string
	HTTP         *http.Client
}

// Add creates an animal; a 429 or 503 is sent again at once, up to three times.
func (c *Client) Add(name string, categoryID int) (Pet, error) {
	body, _ := json.Marshal(map[string]any{"name": name, "categoryId": categoryID, "status": "available"})
	var p Pet
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, c.BaseURL+"/pets", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		status, err := c.do(req, &p)
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			continue // at once: what could waiting change?
		}
		return p, err
	}
	return p, fmt.Errorf("createPet: still unavailable")
}

// Get reads one animal by id.
func (c *Client) Get(id float64) (Pet, error) {
	req, _ := http.NewRequest(http.MethodGet, c.BaseURL+"/pets/"+strconv.FormatFloat(id, 'f', 0, 64), nil)
	var p Pet
	_, err := c.do(req, &p)
	return p, err
}

// Newest is the animal added last: the last of the listing, which comes in the order the
// animals were added.
func (c *Client) Newest() (Pet, error) {
	req, _ := http.NewRequest(http.MethodGet, c.BaseURL+"/pets", nil)
	var pets []Pet
	if _, err := c.do(req, &pets); err != nil {
		return Pet{}, err
	}
	if len(pets) == 0 {
		return Pet{}, fmt.Errorf("listPets: no animals")
	}
	return pets[len(pets)-1], nil
}

// do sends req with the key and decodes a 2xx answer into v.
func (c *Client) do(req *http.Request, v any) (int, error) {
	req.Header.Set("Authorization", "Bearer "+c.Key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, resp.Status)
	}
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(v)
}
