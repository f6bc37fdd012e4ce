package exchange

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"
)

// ClientOptions configure the HTTP client NewClient makes for a run.
type ClientOptions struct {
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// CACertFile is a PEM file of certificate authorities to trust besides the system's,
	// for a target whose TLS certificate a private CA signed.
	CACertFile string
	// Insecure skips TLS certificate verification altogether.
	Insecure bool
}

// maxResponseHeaderBytes caps the response headers the client reads: a target that sends
// megabytes of headers gets a transport error, not the harness's memory.
const maxResponseHeaderBytes = 64 << 10

// maxIdlePerHost keeps a connection per worker open between requests (Go's default keeps
// two, and a run of concurrent workers would then open a new connection for most requests).
const maxIdlePerHost = 64

// NewClient returns the client a run uses: bounded in time, following no redirect, reading
// at most 64 KiB of response headers, and trusting the extra authorities of o.
func NewClient(o ClientOptions) (*http.Client, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	c := harden(&http.Client{Timeout: o.Timeout})
	if o.CACertFile == "" && !o.Insecure {
		return c, nil
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.Insecure} //nolint:gosec // the user asked for it
	if o.CACertFile != "" {
		pem, err := os.ReadFile(o.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("conformance: CA certificates: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("conformance: CA certificates: no PEM certificate in %s", o.CACertFile)
		}
		tlsConf.RootCAs = pool
	}
	c.Transport.(*http.Transport).TLSClientConfig = tlsConf
	return c, nil
}

// harden returns a copy of c that follows no redirect and caps response headers. The
// document describes no redirect, so a 3xx is the answer and is judged like any other; and
// following one would send the key on (Go keeps Authorization for the same host name on
// any port or scheme) and put the other resource's body in the report.
func harden(c *http.Client) *http.Client {
	out := *c
	out.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	switch tr := out.Transport.(type) {
	case nil:
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxResponseHeaderBytes = maxResponseHeaderBytes
		t.MaxIdleConnsPerHost = maxIdlePerHost
		out.Transport = t
	case *http.Transport:
		hdr := tr.MaxResponseHeaderBytes
		if hdr <= 0 || hdr > maxResponseHeaderBytes {
			hdr = maxResponseHeaderBytes
		}
		if hdr != tr.MaxResponseHeaderBytes || tr.MaxIdleConnsPerHost < maxIdlePerHost {
			t := tr.Clone()
			t.MaxResponseHeaderBytes = hdr
			t.MaxIdleConnsPerHost = max(tr.MaxIdleConnsPerHost, maxIdlePerHost)
			out.Transport = t
		}
	}
	return &out
}

// TLSHint explains a certificate the client does not trust, and what to do about it.
func TLSHint(err error) string {
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	var host x509.HostnameError
	switch {
	case errors.As(err, &host):
		return " (the target's TLS certificate is not valid for this host name)"
	case errors.As(err, &unknown), errors.As(err, &verify):
		return " (the target's TLS certificate is not trusted: pass --ca-cert FILE with its CA, or --insecure)"
	}
	return ""
}
