package sqlite_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestBenchmarkHelpersStayInternal: helpers that only benchmarks and tests
// use are not part of the package's API (tests reach them through
// unexported_test.go).
func TestBenchmarkHelpersStayInternal(t *testing.T) {
	internal := map[string]bool{"CodesRead": true, "IndexStats": true, "Pragmas": true, "NewID": true, "FTSQuery": true}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			for _, d := range f.Decls {
				var names []string
				switch d := d.(type) {
				case *ast.FuncDecl:
					names = append(names, d.Name.Name)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							names = append(names, s.Name.Name)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								names = append(names, n.Name)
							}
						}
					}
				}
				for _, n := range names {
					found++
					if internal[n] {
						t.Errorf("%s declares %s in the package's API", name, n)
					}
				}
			}
		}
	}
	if found < 50 {
		t.Errorf("only %d declarations found: the parse missed the package", found)
	}
}
