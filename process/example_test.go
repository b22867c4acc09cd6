//go:build unix

package process_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/stopgate/stopgate/process"
)

// Start a process, wait for it, and read what it printed. The exit code and the fact that the
// output was read are the two things a completion gate asks about.
func Example() {
	m := process.New(nil)
	defer m.Close()
	ctx := context.Background()

	info, err := m.Start(ctx, process.StartOptions{Command: "echo compiling; echo 'FAIL: TestParse' >&2; exit 1"})
	if err != nil {
		log.Fatal(err)
	}
	info, err = m.Wait(ctx, info.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("exit code %d, %d of %d bytes read\n", *info.ExitCode, info.ReadOffset, info.LogSize)

	out, err := m.Read(info.ID, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s", out.Data)
	fmt.Println("end of output:", out.EOF)
	// Output:
	// exit code 1, 0 of 26 bytes read
	// compiling
	// FAIL: TestParse
	// end of output: true
}

// Stop records the signal that ended the process and who asked for it, so a dev server the agent
// stopped on purpose is not mistaken for a failure.
func ExampleManager_Stop() {
	m := process.New(&process.Options{Grace: 10 * time.Second})
	defer m.Close()

	info, err := m.Start(context.Background(), process.StartOptions{Args: []string{"sleep", "600"}})
	if err != nil {
		log.Fatal(err)
	}
	if err := m.Stop(info.ID, process.ByAgent); err != nil {
		log.Fatal(err)
	}
	info, _ = m.Get(info.ID)
	fmt.Println("exit code:", info.ExitCode)
	fmt.Println("signal:", info.Signal)
	fmt.Println("stopped by the agent:", info.StoppedByAgent)
	// Output:
	// exit code: <nil>
	// signal: SIGTERM
	// stopped by the agent: true
}
