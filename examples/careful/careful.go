// Package careful is a pet store client that takes the interface document at its word: an
// id is an int64, a listing has no order and may be shorter than the limit, and a 429 or
// 503 is sent again only after the wait its Retry-After asks for. It passes against the
// plain reference and against every petstore serve --vary seed (careful_test.go).
package careful

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Pet is an animal; ids are int64, as section 2 says (format int64).
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Client calls the interface at BaseURL (ending in /v1) with Key.
type Client struct {
	BaseURL, Key string
	HTTP         *http.Client
	// Sleep waits as a Retry-After asks; nil is time.Sleep. Tests pass one that moves
	// their clock instead.
	Sleep func(time.Duration)
	// Attempts bounds the tries of one request; 0 means 5.
	Attempts int
}

// Add creates an animal and returns it as the server stored it.
func (c *Client) Add(name string, categoryID int64, status string) (Pet, error) {
	body, err := json.Marshal(map[string]any{"name": name, "categoryId": categoryID, "status": status})
	if err != nil {
		return Pet{}, err
	}
	var p Pet
	return p, c.do(http.MethodPost, "/pets", body, &p)
}

// Get reads one animal by id (getPet, deprecated: removed on 5 December 2030).
func (c *Client) Get(id int64) (Pet, error) {
	var p Pet
	return p, c.do(http.MethodGet, "/pets/"+strconv.FormatInt(id, 10), nil, &p)
}

// List returns at most limit animals of status, in the server's order.
func (c *Client) List(status string, limit int) ([]Pet, error) {
	var pets []Pet
	return pets, c.do(http.MethodGet, fmt.Sprintf("/pets?status=%s&limit=%d", status, limit), nil, &pets)
}

// do sends one request, again after the wait a 429 or 503 asks for, and decodes a 2xx
// answer into v.
func (c *Client) do(method, path string, body []byte, v any) error {
	attempts := c.Attempts
	if attempts == 0 {
		attempts = 5
	}
	for try := 1; ; try++ {
		req, err := http.NewRequest(method, c.BaseURL+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.Key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.HTTP.Do(req)
		if err != nil {
			return err
		}
		wait, again := retryAfter(resp)
		if again && try < attempts {
			resp.Body.Close()
			c.sleep(wait)
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s %s: %s", method, path, resp.Status)
		}
		dec := json.NewDecoder(resp.Body)
		return dec.Decode(v)
	}
}

// retryAfter says whether resp asks to come back later, and after how long (1 s when it
// does not say).
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t), true
	}
	return time.Second, true
}

func (c *Client) sleep(d time.Duration) {
	if c.Sleep != nil {
		c.Sleep(d)
		return
	}
	time.Sleep(d)
}
