package conformance

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

// NewClient returns the client a run uses: bounded in time, following at most a few
// redirects, and trusting the extra authorities of o.
func NewClient(o ClientOptions) (*http.Client, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	c := &http.Client{
		Timeout: o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil
		},
	}
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
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsConf
	c.Transport = tr
	return c, nil
}

// tlsHint explains a certificate the client does not trust, and what to do about it.
func tlsHint(err error) string {
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
