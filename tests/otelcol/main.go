// Command otelcol is an OpenTelemetry Collector of two components: the Collector's own
// OTLP receiver (gRPC and HTTP, protobuf and JSON), and filejson, an exporter that writes
// every batch of spans and metrics it is given as one line of OTLP JSON to a file. The
// tests run it with a configuration of their own (tests/observe_e2e_test.go) and read the
// file.
//
// Why is the OTLP receiver a Collector built from a module of its own, with an exporter of
// ours? The tests check what a real receiver accepts: the Collector's own OTLP receiver,
// built from its pinned modules here (a module of its own, so that skilledge's go.mod
// requires none of it). The Collector's distributions are binaries this machine cannot
// download, and its file exporter is in the contrib repository at other versions; an
// exporter of ours, twenty lines on the Collector's pdata, writes what the receiver decoded
// as OTLP JSON lines the test reads.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	info := component.BuildInfo{Command: "otelcol", Description: "the tests' OTLP receiver", Version: "test"}
	set := otelcol.CollectorSettings{
		BuildInfo: info,
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
			DefaultScheme:     "file",
		}},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func factories() (otelcol.Factories, error) {
	f := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](newFileJSON())
	return f, err
}

// fileJSONConfig is filejson's configuration: the file it appends to.
type fileJSONConfig struct {
	Path string `mapstructure:"path"`
}

var fileJSONType = component.MustNewType("filejson")

func newFileJSON() exporter.Factory {
	return exporter.NewFactory(fileJSONType,
		func() component.Config { return &fileJSONConfig{} },
		exporter.WithTraces(func(_ context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
			return &fileJSON{path: cfg.(*fileJSONConfig).Path}, nil
		}, component.StabilityLevelDevelopment),
		exporter.WithMetrics(func(_ context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
			return &fileJSON{path: cfg.(*fileJSONConfig).Path}, nil
		}, component.StabilityLevelDevelopment),
	)
}

// fileJSON appends each batch it is given to its file as a line of OTLP JSON.
type fileJSON struct {
	path string
}

var fileMu sync.Mutex

func (e *fileJSON) Start(context.Context, component.Host) error { return nil }
func (e *fileJSON) Shutdown(context.Context) error              { return nil }
func (e *fileJSON) Capabilities() consumer.Capabilities         { return consumer.Capabilities{} }

func (e *fileJSON) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	return e.append(b)
}

func (e *fileJSON) ConsumeMetrics(_ context.Context, md pmetric.Metrics) error {
	b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	if err != nil {
		return err
	}
	return e.append(b)
}

func (e *fileJSON) append(b []byte) error {
	fileMu.Lock()
	defer fileMu.Unlock()
	f, err := os.OpenFile(e.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(b, '\n'))
	return err
}
