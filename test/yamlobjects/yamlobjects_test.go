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

package yamlobjects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile_ReportsTheBrokenDocumentAndKeepsTheOthers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.yaml")
	content := "# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\nkind: [broken\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n"
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	objects, err := ReadFile(file)
	if err == nil || !strings.Contains(err.Error(), "document 3") {
		t.Errorf("error %v, want one naming document 3", err)
	}
	if len(objects) != 2 || objects[0].GetName() != "a" || objects[1].GetName() != "b" {
		t.Errorf("got %d objects, want namespaces a and b", len(objects))
	}
}
