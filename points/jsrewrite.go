package points

import (
	"reflect"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/unistring"
)

// rewriteJS turns the syntax that makes one huge allocation in a single instruction into calls
// of the checks jsGuards defines, before the script is compiled:
//
//   - an untagged template literal `a${x}b${y}` is concatenated by one instruction, however many
//     substitutions and however long each: it becomes __vlTemplate(["a", "b", ""], x, y), which
//     converts, counts, then joins;
//   - object spread {...x} copies one property per element of x (160 bytes each, so a 16 MB
//     string makes 2.6 GB): x becomes __vlSpread(x);
//   - object rest {...rest} = x does the same: the pattern gets a first, computed property
//     [__vlRestCheck]: {}, whose getter (on Object.prototype and String.prototype) checks x;
//   - a regular expression literal /p/f would run on Go's regexp when p allows it, which no
//     limit stops: its pattern gets jsRegexpSuffix, so it runs on regexp2 with a time limit
//     (jsGuards hides the suffix from source and toString).
//
// Everything else in the program is left as parsed.
func rewriteJS(prg *ast.Program) {
	w := jsRewriter{seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(prg))
}

type jsRewriter struct {
	seen map[uintptr]bool
}

// walk visits every node below v, children first, then rewrites v's own fields and elements.
func (w *jsRewriter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem())
		switch n := v.Interface().(type) {
		case *ast.RegExpLiteral:
			// Runs on regexp2, whose scans have a time limit (jsRegexpTimeout). A pattern that
			// goja refuses as written stays as written, so the script fails to compile with
			// goja's own message: regexp2 alone would accept some of them (a "\\c" before a
			// character that is not a letter, for one).
			if _, err := goja.Compile("", n.Literal, false); err == nil {
				n.Pattern += jsRegexpSuffix
			}
		case *ast.ObjectLiteral:
			for _, p := range n.Value {
				if s, ok := p.(*ast.SpreadElement); ok {
					s.Expression = jsCall("__vlSpread", s.Expression.Idx0(), s.Expression)
				}
			}
		case *ast.ObjectPattern:
			if n.Rest != nil {
				check := &ast.PropertyKeyed{Key: &ast.Identifier{Name: "__vlRestCheck", Idx: n.LeftBrace}, Kind: ast.PropertyKindValue,
					Computed: true, Value: &ast.ObjectPattern{LeftBrace: n.LeftBrace, RightBrace: n.LeftBrace}}
				n.Properties = append([]ast.Property{check}, n.Properties...)
			}
		}
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			w.walk(f)
			w.replace(f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			w.walk(v.Index(i))
			w.replace(v.Index(i))
		}
	}
}

// replace puts __vlTemplate(...) in place of an untagged template literal held by f.
func (w *jsRewriter) replace(f reflect.Value) {
	if f.Kind() != reflect.Interface || f.IsNil() || !f.CanSet() {
		return
	}
	t, ok := f.Interface().(*ast.TemplateLiteral)
	if !ok || t.Tag != nil || !reflect.TypeFor[*ast.CallExpression]().AssignableTo(f.Type()) {
		return
	}
	strings := &ast.ArrayLiteral{LeftBracket: t.OpenQuote, RightBracket: t.CloseQuote}
	for _, e := range t.Elements {
		strings.Value = append(strings.Value, &ast.StringLiteral{Idx: e.Idx, Literal: e.Literal, Value: e.Parsed})
	}
	f.Set(reflect.ValueOf(jsCall("__vlTemplate", t.OpenQuote, append([]ast.Expression{strings}, t.Expressions...)...)))
}

func jsCall(name string, at file.Idx, args ...ast.Expression) *ast.CallExpression {
	return &ast.CallExpression{Callee: &ast.Identifier{Name: unistring.NewFromString(name), Idx: at}, LeftParenthesis: at, ArgumentList: args, RightParenthesis: at}
}

// compileGuarded parses, rewrites (rewriteJS) and compiles a script.
func compileGuarded(name, code string) (*goja.Program, error) {
	prg, err := goja.Parse(name, code)
	if err != nil {
		return nil, err
	}
	rewriteJS(prg)
	return goja.CompileAST(prg, false)
}
