package cmd

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/otel"
)

// parseOTel checks the flags of the otel format and of --to otlp: the
// receiver, its headers and protocol come from --to and the OTEL_*
// variables (pkg/otel reads them).
func (o *exportOptions) parseOTel(changed func(string) bool, to string) error {
	if otel.IsTo(to) {
		if changed("format") && o.format != export.OTel {
			return exitcode.Usagef("--to %s sends spans (--format otel); --format %s does not apply", to, o.format)
		}
		if o.ack {
			return exitcode.Usagef("--ack: --to otlp moves each cursor once the receiver accepted its spans; drop --ack")
		}
		ep, err := otel.ParseTo(to, os.Getenv)
		var ue *otel.UsageError
		if errors.As(err, &ue) {
			return exitcode.Usagef("%s", ue.Msg)
		}
		if err != nil {
			return err
		}
		o.format, o.otlp = export.OTel, &ep
	}
	if o.otelContent && o.format != export.OTel {
		return exitcode.Usagef("--otel-content puts texts on spans; it goes with --format otel or --to otlp")
	}
	return nil
}

// otelResource is the resource of every span of this run.
func otelResource() otel.Resource {
	v, _, _ := strings.Cut(Version(), " ") // the version alone, not its commit and date
	return otel.Resource{ServiceName: os.Getenv("OTEL_SERVICE_NAME"), Version: v}
}

// otelOutput is the writer of --format otel, on stdout or, with --to
// otlp, to the receiver.
func (o *exportOptions) otelOutput(ctx context.Context) *exportOutput {
	if o.otlp != nil {
		client := &otel.Client{Endpoint: *o.otlp, Resource: otelResource()}
		return &exportOutput{Writer: otel.NewWriter(ctx, client, o.otelContent), otlp: client}
	}
	sink := otel.NewJSONSink(o.f.IO.Out, otelResource())
	return &exportOutput{Writer: otel.NewWriter(ctx, sink, o.otelContent), delivered: o.f.IO.OutRead}
}
