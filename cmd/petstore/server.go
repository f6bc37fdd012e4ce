package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/petstore/petstore/internal/cli"
)

// serverLimits are the connection limits of the http.Server: what keeps a slow or greedy
// client from holding a connection or memory forever.
type serverLimits struct {
	readHeaderTimeout time.Duration // request line and headers (slowloris)
	readTimeout       time.Duration // the whole request, body included
	writeTimeout      time.Duration // from the end of the headers to the end of the response
	idleTimeout       time.Duration // between requests on a kept-alive connection
	maxHeaderBytes    int           // request line and headers; net/http answers 431 beyond
	shutdownTimeout   time.Duration // after SIGTERM, for the requests in flight
}

var defaultLimits = serverLimits{
	readHeaderTimeout: 5 * time.Second,
	readTimeout:       15 * time.Second,
	writeTimeout:      30 * time.Second,
	idleTimeout:       60 * time.Second,
	maxHeaderBytes:    16 << 10,
	shutdownTimeout:   10 * time.Second,
}

func (l *serverLimits) flags(fs *flag.FlagSet) {
	fs.DurationVar(&l.readHeaderTimeout, "read-header-timeout", l.readHeaderTimeout, "time allowed for a request's line and headers (`duration`); the connection is closed beyond")
	fs.DurationVar(&l.readTimeout, "read-timeout", l.readTimeout, "time to read a whole request (`duration`), body included")
	fs.DurationVar(&l.writeTimeout, "write-timeout", l.writeTimeout, "time to handle a request and write the response (`duration`)")
	fs.DurationVar(&l.idleTimeout, "idle-timeout", l.idleTimeout, "how long a kept-alive connection may wait for its next request (`duration`)")
	fs.IntVar(&l.maxHeaderBytes, "max-header-bytes", l.maxHeaderBytes, "maximum size of request line and headers in `bytes` (431 beyond)")
	fs.DurationVar(&l.shutdownTimeout, "shutdown-timeout", l.shutdownTimeout, "on SIGTERM, how long requests in flight may take (`duration`) before their connections are closed")
}

// check refuses zero and negative limits: for net/http zero means "no limit", which is the
// hole these limits close.
func (l *serverLimits) check() error {
	for name, d := range map[string]time.Duration{
		"--read-header-timeout": l.readHeaderTimeout, "--read-timeout": l.readTimeout,
		"--write-timeout": l.writeTimeout, "--idle-timeout": l.idleTimeout,
		"--shutdown-timeout": l.shutdownTimeout,
	} {
		if d <= 0 {
			return fmt.Errorf("%s must be positive, got %v", name, d)
		}
	}
	if l.maxHeaderBytes <= 0 {
		return fmt.Errorf("--max-header-bytes must be positive, got %d", l.maxHeaderBytes)
	}
	return nil
}

// newHTTPServer is the http.Server of `petstore serve`; tests build theirs with it too.
func newHTTPServer(h http.Handler, l serverLimits, stderr io.Writer) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeaderTimeout,
		ReadTimeout:       l.readTimeout,
		WriteTimeout:      l.writeTimeout,
		IdleTimeout:       l.idleTimeout,
		MaxHeaderBytes:    l.maxHeaderBytes,
		ErrorLog:          log.New(stderr, "petstore: http: ", log.LstdFlags),
	}
}

// shutdown stops srv gracefully: no new connections, the requests in flight finish, and
// after timeout the remaining connections are closed (exit 1: those requests were cut).
func shutdown(srv *http.Server, timeout time.Duration, stdout io.Writer) error {
	// Shutdown closes the listeners before it runs this hook, so the line below tells a
	// watcher (and the tests) that new connections are refused from now on.
	closed := make(chan struct{})
	srv.RegisterOnShutdown(func() { close(closed) })
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	<-closed
	fmt.Fprintln(stdout, "petstore: shutting down: new connections are refused, requests in flight finish")
	err := <-done
	if errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
		return cli.Failed("petstore: requests still running after --shutdown-timeout %v; closed their connections", timeout)
	}
	if err != nil {
		return cli.Usagef("petstore: shutdown: %v", err)
	}
	fmt.Fprintln(stdout, "petstore: stopped")
	return nil
}
