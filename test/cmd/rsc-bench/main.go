/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
