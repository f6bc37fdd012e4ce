package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
)

// pactFlags write the journal's interactions as a consumer contract at shutdown.
type pactFlags struct {
	file, consumer, provider string
}

func (p *pactFlags) flags(fs *flag.FlagSet) {
	fs.StringVar(&p.file, "pact", "", "at shutdown, write the client's distinct requests as a Pact v4 consumer contract to this `file` (-: stdout)")
	fs.StringVar(&p.consumer, "pact-consumer", double.DefaultPactConsumer, "the consumer's `name` in the --pact file")
	fs.StringVar(&p.provider, "pact-provider", double.DefaultPactProvider, "the provider's `name` in the --pact file")
}

// check refuses a --pact that could not be written at shutdown, or that has no journal.
func (p *pactFlags) check(journal int) error {
	if p.file != "" && journal == 0 {
		return fmt.Errorf("--pact needs a journal; drop --journal 0")
	}
	return checkWritable("--pact", p.file)
}

// write writes the pact where --pact says, at shutdown.
func (p *pactFlags) write(srv *reference.Server, stdout io.Writer) error {
	if p.file == "" {
		return nil
	}
	data, err := srv.Pact(p.consumer, p.provider)
	if err != nil {
		return err
	}
	if p.file == "-" {
		_, err = stdout.Write(data)
		return err
	}
	if err := os.WriteFile(p.file, data, 0o644); err != nil {
		return fmt.Errorf("--pact: %w", err)
	}
	fmt.Fprintf(stdout, "petstore: pact written to %s\n", p.file)
	return nil
}
