package conformance

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/petstore/petstore/conformance/exchange"
)

// A family with more failing cases than a report keeps exchanges for still gives every failure
// its exchange and curl line; beyond exchange.MaxExchanges they lose their response bodies.
func TestEveryFailureKeepsItsCurlLine(t *testing.T) {
	const n, failing = 40, 30
	var res Result
	for i := range n {
		res.Exchanges = append(res.Exchanges, Exchange{Curl: fmt.Sprintf("curl %d", i),
			Response: &ExchangeResponse{Status: 500, Body: "body"}})
	}
	for i := range failing {
		res.Failures = append(res.Failures, Failure{Exchange: i, Message: "want 201"})
	}
	keepExchanges(&res)
	assert.Len(t, res.Exchanges, failing)
	for i, f := range res.Failures {
		if assert.GreaterOrEqual(t, f.Exchange, 0, "failure %d lost its exchange", i) {
			ex := res.Exchanges[f.Exchange]
			assert.Equal(t, fmt.Sprintf("curl %d", i), ex.Curl)
			assert.Equal(t, i >= exchange.MaxExchanges, ex.Response.Truncated, "failure %d", i)
			assert.Equal(t, i < exchange.MaxExchanges, ex.Response.Body != "", "failure %d", i)
		}
	}
}
