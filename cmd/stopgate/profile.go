package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profileFlags are the profiling flags of 'stopgate serve': a CPU profile of the whole run
// and a heap profile (allocations included) taken as it stops, for `go tool pprof`. The load
// test passes them through.
type profileFlags struct {
	cpu, mem string
}

func (p *profileFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpu-profile", "", "write a CPU profile of the run to `FILE` when serve stops (go tool pprof)")
	fs.StringVar(&p.mem, "mem-profile", "", "write a heap and allocations profile to `FILE` when serve stops (go tool pprof -sample_index=alloc_space)")
}

// start begins what the flags ask for and returns the function that finishes it and writes
// the files.
func (p *profileFlags) start() (stop func() error, err error) {
	var cpu *os.File
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			return nil, fmt.Errorf("--cpu-profile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			_ = cpu.Close()
			return nil, fmt.Errorf("--cpu-profile: %w", err)
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if p.mem != "" {
			runtime.GC() // the heap profile is as of the last collection
			f, err := os.Create(p.mem)
			if err != nil {
				return errors.Join(append(errs, fmt.Errorf("--mem-profile: %w", err))...)
			}
			errs = append(errs, pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
		}
		return errors.Join(errs...)
	}, nil
}
