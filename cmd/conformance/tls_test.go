package main

import (
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
)

// A target with a certificate the system does not trust: a clear exit 2, and both ways
// out (--ca-cert with its authority, --insecure) give a conforming run.
func TestTLSTarget(t *testing.T) {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key}})
	require.NoError(t, err)
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	base := srv.URL + "/v1"
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))

	tests := []struct {
		name  string
		flags []string
		code  int
		says  string
	}{
		{"untrusted", nil, 2, "--ca-cert FILE"},
		{"insecure", []string{"--insecure"}, 0, "CONFORMING"},
		{"ca-cert", []string{"--ca-cert", ca}, 0, "CONFORMING"},
		{"ca-cert missing", []string{"--ca-cert", filepath.Join(t.TempDir(), "none.pem")}, 2, "none.pem"},
		{"ca-cert not PEM", []string{"--ca-cert", notPEM}, 2, "no PEM certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--base-url", base, "--api-key", key, "--only", "listPets/bare-array"}, tt.flags...)
			code, stdout, stderr := runMain(t, nil, args...)
			assert.Equal(t, tt.code, code, "stdout: %s\nstderr: %s", stdout, stderr)
			assert.Contains(t, stdout+stderr, tt.says)
			if tt.code == 2 {
				assert.Empty(t, stdout, "a run that could not be made prints no report")
				assert.Regexp(t, `^[^\n]+\n$`, stderr, "one line")
			}
		})
	}
}
