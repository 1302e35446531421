package main

import (
	"fmt"
	"io"
	"os"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
)

const name = "rsc-bench"

func main() {
	ctx, stop := cli.ShutdownContext()
	defer stop()
	if len(os.Args) < 2 {
		os.Exit(usage(os.Stderr))
	}
	switch os.Args[1] {
	case "loadtest":
		os.Exit(runLoadtest(ctx, os.Args[2:], os.Stdout, os.Stderr))
	case "scale":
		os.Exit(runScale(ctx, os.Args[2:], os.Stdout, os.Stderr))
	case "drill":
		os.Exit(runDrill(ctx, os.Args[2:], os.Stdout, os.Stderr))
	case "-h", "-help", "--help", "help":
		usage(os.Stdout)
		os.Exit(0)
	}
	os.Exit(usage(os.Stderr))
}

func usage(w io.Writer) int {
	fmt.Fprintf(w, "Usage: %s loadtest|scale|drill [flags]  (%s <command> -h for its flags)\n", name, name)
	return 2
}
