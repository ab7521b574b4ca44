package scopes

import (
	"encoding/json"
	"os"
	"testing"
)

// formatCases are the scanners' table tests: what Scan finds (describe) in short documents of
// each format, one construct or edge at a time.
var formatCases = []struct {
	name string
	syn  Syntax
	src  string
	want string
}{
	// AsciiDoc.
	{"adoc header: title, author, revision, attributes with a continued value", SyntaxAsciiDoc,
		"= Title\nAuthor Name <a@example.com>\nv2.0, 2024-05-01: Notes\n:toc:\n:description: A long \\\n  description.\n\nBody text.\n",
		"frontmatter \"Author Name <a@example.com>\"\nfrontmatter \"v2.0, 2024-05-01: Notes\"\nfrontmatter \":toc:\"\nfrontmatter \":description: A long \\\\\"\nfrontmatter \"  description.\"\nheading 1 \"Title\" after \"= \"\n"},
	{"adoc the header ends at a third line that is not an attribute", SyntaxAsciiDoc,
		"= Title\nAuthor\nv1\n:a: b\nBody text right after.\n",
		"frontmatter \"Author\"\nfrontmatter \"v1\"\nfrontmatter \":a: b\"\nheading 1 \"Title\" after \"= \"\n"},
	{"adoc header after comments and attributes", SyntaxAsciiDoc,
		"// vectorlint-disable\n:page-role: x\n= Title\n\nBody.\n",
		"markup \"// vectorlint-disable\"\nfrontmatter \":page-role: x\"\ncomment \"// vectorlint-disable\"\nheading 1 \"Title\" after \"= \"\n"},
	{"adoc inline literals and passthroughs", SyntaxAsciiDoc,
		"Text with `code`, ``un`constrained``, +pass+ and ++double++ and +++<b>raw</b>+++.\nA plus in C++ and 1 + 2 is text; so is a`b and a lone ` mark.\n",
		"inlinecode \"`code`\" +\ninlinecode \"``un`constrained``\" +\ninlinecode \"+pass+\" +\ninlinecode \"++double++\" +\nhtml \"+++<b>raw</b>+++\" +\n"},
	{"adoc curved quotes are not code", SyntaxAsciiDoc,
		"He said \"`curved`\" and '`single`'.\n",
		"markup \"\\\"`\"\nmarkup \"`\\\"\"\nmarkup \"'`\"\nmarkup \"`'\"\n"},
	{"adoc delimited verbatim blocks", SyntaxAsciiDoc,
		"----\nlisting https://x.example\n// vectorlint-disable\n----\n\n....\nliteral\n....\n\n```go\nfenced()\n```\n\n++++\n<div>raw</div>\n++++\n\n////\ncomment block\n////\n",
		"code \"----\\nlisting https://x.example\\n// vectorlint-disable\\n----\"\ncode \"....\\nliteral\\n....\"\ncode \"```go\\nfenced()\\n```\"\nhtml \"++++\\n<div>raw</div>\\n++++\"\nmarkup \"////\\ncomment block\\n////\"\n"},
	{"adoc a longer delimiter nests a shorter one", SyntaxAsciiDoc,
		"------\n----\nstill code\n----\n------\nProse.\n",
		"code \"------\\n----\\nstill code\\n----\\n------\"\n"},
	{"adoc styled paragraphs and blocks", SyntaxAsciiDoc,
		"[source,python]\nprint(\"styled as source\")\n\n[literal]\nliteral paragraph\n\n[pass]\n<b>pass</b>\n\n[comment]\nnot shown\n\n[stem]\n++++\nx^2\n++++\n\n[source]\n--\nopen block as source\n--\n\n[NOTE]\n====\nAdmonition prose.\n====\n",
		"markup \"[source,python]\"\ncode \"print(\\\"styled as source\\\")\"\nmarkup \"[literal]\"\ncode \"literal paragraph\"\nmarkup \"[pass]\"\nhtml \"<b>pass</b>\"\nmarkup \"[comment]\"\nmarkup \"not shown\"\nmarkup \"[stem]\"\nmath \"++++\\nx^2\\n++++\"\nmarkup \"[source]\"\ncode \"--\\nopen block as source\\n--\"\nmarkup \"[NOTE]\"\nmarkup \"====\"\nmarkup \"====\"\n"},
	{"adoc a styled paragraph ends at its block's delimiter", SyntaxAsciiDoc,
		"====\n[source]\nputs 1\n====\nProse.\n",
		"markup \"====\"\nmarkup \"[source]\"\ncode \"puts 1\"\nmarkup \"====\"\n"},
	{"adoc indented literal paragraphs, indented list items", SyntaxAsciiDoc,
		"Prose.\n\n  An indented literal.\n  Second line.\n\n  * an indented list item is prose\n  continued\n\nCPU::\n  The brain.\n",
		"code \"  An indented literal.\\n  Second line.\"\n"},
	{"adoc comment lines anywhere", SyntaxAsciiDoc,
		"// vectorlint-disable\nText // not a comment\n// vectorlint-enable Acme.Tone\n/// also a comment\n",
		"markup \"// vectorlint-disable\"\nmarkup \"// vectorlint-enable Acme.Tone\"\nmarkup \"/// also a comment\"\ncomment \"// vectorlint-disable\"\ncomment \"// vectorlint-enable Acme.Tone\"\ncomment \"/// also a comment\"\n"},
	{"adoc block lines: titles, macros, breaks, preprocessor, attributes", SyntaxAsciiDoc,
		".A block title\nimage::images/arch.png[Architecture,600,400]\ntoc::[]\n\n'''\n\n<<<\n\ninclude::partial$x.adoc[lines=1..5]\nifdef::env-site[]\nendif::[]\n:!sectnums:\n",
		"markup \".\"\nmarkup \"image::\"\nurls \"images/arch.png\"\nmarkup \"[Architecture,600,400]\"\nmarkup \"toc::[]\"\nmarkup \"'''\"\nmarkup \"<<<\"\nmarkup \"include::partial$x.adoc[lines=1..5]\"\nmarkup \"ifdef::env-site[]\"\nmarkup \"endif::[]\"\nmarkup \":!sectnums:\"\n"},
	{"adoc links: macros, URLs, attribute targets, images", SyntaxAsciiDoc,
		"See link:https://a.example[the site^], link:/docs[text,window=_blank], xref:page.adoc#s[the page],\nmailto:help@a.example[Email us], https://b.example[B], <https://c.example>, https://d.example.\nOr {url-repo}/issues[file an issue], {product} and image:icon.png[Icon,16] inline; write to me@a.example.\n",
		"urls \"link:https://a.example\"\nmarkup \"[\"\nmarkup \"^]\"\nurls \"link:/docs\"\nmarkup \"[\"\nmarkup \",window=_blank]\"\nurls \"xref:page.adoc#s\"\nmarkup \"[\"\nmarkup \"]\"\nurls \"mailto:help@a.example\"\nmarkup \"[\"\nmarkup \"]\"\nurls \"https://b.example\"\nmarkup \"[\"\nmarkup \"]\"\nurls \"<https://c.example>\" +\nurls \"https://d.example\" +\nurls \"{url-repo}/issues\"\nmarkup \"[\"\nmarkup \"]\"\nmarkup \"image:\"\nurls \"icon.png\"\nmarkup \"[Icon,16]\"\nurls \"me@a.example\" +\n"},
	{"adoc cross references, anchors, index terms, footnotes, UI and math macros", SyntaxAsciiDoc,
		"Refer to <<install,the install section>> or <<faq>>; a << b >> c stays.\nAnchors [[here]] and [[[bib]]] and anchor:x[] and [.role]#styled# text.\nIndex (((Term, Sub))) entries, footnote:[Footnote `text`] and footnote:id[Named].\nPress kbd:[Ctrl+C], btn:[Save], see stem:[sqrt(4) = 2] and pass:q[<u>x</u>].\n",
		"urls \"<<install,\"\nmarkup \">>\"\nurls \"<<faq>>\" +\nmarkup \"[[here]]\"\nmarkup \"[[[bib]]]\"\nmarkup \"anchor:x[]\"\nmarkup \"[.role]\"\nmarkup \"(((Term, Sub)))\"\nmarkup \"footnote:[\"\ninlinecode \"`text`\" +\nmarkup \"]\"\nmarkup \"footnote:id[\"\nmarkup \"]\"\ninlinecode \"kbd:[Ctrl+C]\" +\nmarkup \"btn:[\"\nmarkup \"]\"\nmath \"stem:[sqrt(4) = 2]\" +\nhtml \"pass:q[<u>x</u>]\" +\n"},
	{"adoc tables: cell separators and specifiers", SyntaxAsciiDoc,
		"[cols=\"1,2a\"]\n|===\n|Name |Description\n\n|`--v`\na|Lists:\n\n* item\n2+|Spanning cell\nh|Header cell |escaped \\| pipe\n|===\n\n,===\na,b\n,===\n",
		"markup \"[cols=\\\"1,2a\\\"]\"\nmarkup \"|===\"\nmarkup \"|\"\nmarkup \"|\"\nmarkup \"|\"\ninlinecode \"`--v`\" +\nmarkup \"a|\"\nmarkup \"2+|\"\nmarkup \"h|\"\nmarkup \"|\"\nmarkup \"|===\"\nmarkup \",===\"\nmarkup \",===\"\n"},
	{"adoc callouts", SyntaxAsciiDoc,
		"[source,go]\n----\nx // <1>\n----\n<1> The callout text.\n\n<.> Another.\n",
		"markup \"[source,go]\"\ncode \"----\\nx // <1>\\n----\"\nmarkup \"<1> \"\nmarkup \"<.> \"\n"},
	{"adoc section titles", SyntaxAsciiDoc,
		"== Section\n\n=== Sub `code`\n\n## Markdown-style\n\n======= Too deep\n\n==No space\n",
		"inlinecode \"`code`\" +\nheading 2 \"Section\" after \"== \"\nheading 3 \"Sub `code`\" after \"=== \"\nheading 2 \"Markdown-style\" after \"## \"\n"},
	{"adoc an unclosed listing runs to the end", SyntaxAsciiDoc,
		"----\nunclosed listing\nrest\n",
		"code \"----\\nunclosed listing\\nrest\\n\"\n"},
	{"adoc CRLF and lone CR line breaks", SyntaxAsciiDoc,
		"Line `one`\r\n----\r\ncode\r\n----\r\n// c\rText.\r",
		"inlinecode \"`one`\" +\ncode \"----\\r\\ncode\\r\\n----\"\nmarkup \"// c\"\ncomment \"// c\"\n"},
	{"adoc an open block is prose", SyntaxAsciiDoc,
		"--\nOpen block prose with `code`.\n--\n",
		"markup \"--\"\ninlinecode \"`code`\" +\nmarkup \"--\"\n"},

	// reStructuredText.
	{"rst titles with overline and underline, levels by first appearance", SyntaxRST,
		"=======\n Title\n=======\n\nSection\n-------\n\nSub\n~~~\n\nOther\n-------\n\nLong title\n----\n\nShort\n--\n",
		"markup \"=======\"\nmarkup \"=======\"\nmarkup \"-------\"\nmarkup \"~~~\"\nmarkup \"-------\"\nmarkup \"----\"\nheading 1 \"Title\"\nheading 2 \"Section\"\nheading 3 \"Sub\"\nheading 2 \"Other\"\nheading 2 \"Long title\"\n"},
	{"rst inline literals, default role, roles", SyntaxRST,
		"Run ``acme login``, set `name`, read :envvar:`ACME_HOME`, :py:func:`os.path.join` and\n:abbr:`CLI (command-line interface)`, press :kbd:`Ctrl+C`, :math:`x^2`, `text`:term: and :guilabel:`&Cancel`.\n",
		"inlinecode \"``acme login``\" +\ninlinecode \"`name`\" +\ninlinecode \":envvar:`ACME_HOME`\" +\ninlinecode \":py:func:`os.path.join`\" +\nmarkup \":abbr:`\"\nmarkup \"`\"\ninlinecode \":kbd:`Ctrl+C`\" +\nmath \":math:`x^2`\" +\nmarkup \"`\"\nmarkup \"`:term:\"\nmarkup \":guilabel:`\"\nmarkup \"`\"\n"},
	{"rst references and targets", SyntaxRST,
		"See :ref:`the guide <install>`, :ref:`install`, :doc:`usage`, `the site <https://a.example>`_,\n`anonymous <https://b.example>`__, `Section`_, Python_, _`inline target` and https://c.example.\nFootnotes [1]_, [#note]_ and [CIT2002]_; |product| stays.\n",
		"markup \":ref:`\"\nurls \" <install>\"\nmarkup \"`\"\nurls \":ref:`install`\" +\nurls \":doc:`usage`\" +\nmarkup \"`\"\nurls \" <https://a.example>\"\nmarkup \"`_\"\nmarkup \"`\"\nurls \" <https://b.example>\"\nmarkup \"`__\"\nmarkup \"`\"\nmarkup \"`_\"\nmarkup \"_`\"\nmarkup \"`\"\nurls \"https://c.example\" +\nmarkup \"[1]_\"\nmarkup \"[#note]_\"\nmarkup \"[CIT2002]_\"\n"},
	{"rst inline markup needs its boundaries", SyntaxRST,
		"2*3*4 and a``b`` and `` spaced `` and ``x`` and a ` lone backquote; escaped \\`x\\`.\n",
		"inlinecode \"``x``\" +\n"},
	{"rst literal blocks after ::", SyntaxRST,
		"Example::\n\n    $ acme deploy\n\n    .. vectorlint-disable\n\nAfter.\n\nExpanded form ::\n\n  x = 1\n\n::\n\n  y = 2\n\nQuoted::\n\n> a\n> b\n\nNot literal:\n\n  A block quote.\n",
		"markup \":\"\ncode \"    $ acme deploy\\n\\n    .. vectorlint-disable\"\nmarkup \" ::\"\ncode \"  x = 1\"\nmarkup \"::\"\ncode \"  y = 2\"\nmarkup \":\"\ncode \"> a\\n> b\"\n"},
	{"rst a literal block in a list item", SyntaxRST,
		"- Run::\n\n      acme\n\n  Item prose.\n- Next item.\n",
		"markup \":\"\ncode \"      acme\"\n"},
	{"rst comments and controls", SyntaxRST,
		".. vectorlint-disable\n\n.. A comment\n   over two lines.\n\n..\n\n   Not a comment: an empty comment ends.\n\n..\n   comment body\n",
		"markup \".. vectorlint-disable\"\nmarkup \".. A comment\\n   over two lines.\"\nmarkup \"..\"\nmarkup \"..\\n   comment body\"\ncomment \".. vectorlint-disable\"\ncomment \".. A comment\\n   over two lines.\"\ncomment \"..\"\ncomment \"..\\n   comment body\"\n"},
	{"rst directives: code, math, raw, markup, prose bodies", SyntaxRST,
		".. code-block:: python\n   :linenos:\n\n   import acme\n\n.. math::\n\n   E = mc^2\n\n.. raw:: html\n\n   <hr>\n\n.. toctree::\n   :maxdepth: 2\n\n   intro\n\n.. note:: First words.\n   :class: tip\n\n   Note body with ``code``.\n\n.. figure:: arch.png\n   :alt: Arch\n\n   The caption.\n\n.. py:function:: spam(eggs)\n\n   Spam the eggs.\n",
		"code \".. code-block:: python\\n   :linenos:\\n\\n   import acme\"\nmath \".. math::\\n\\n   E = mc^2\"\nhtml \".. raw:: html\\n\\n   <hr>\"\nmarkup \".. toctree::\\n   :maxdepth: 2\\n\\n   intro\"\nmarkup \".. note:: \"\nmarkup \":class: tip\"\ninlinecode \"``code``\" +\nmarkup \".. figure:: arch.png\"\nmarkup \":alt: Arch\"\nmarkup \".. py:function:: spam(eggs)\"\n"},
	{"rst explicit targets, substitutions, footnotes", SyntaxRST,
		".. _install:\n\n.. _Acme: https://acme.example\n   /docs\n\n__ https://anon.example\n\n.. |product| replace:: Acme CLI\n\n.. |logo| image:: logo.png\n   :width: 20\n\n.. [#f1] Footnote text.\n\n.. [CIT2002] Citation text.\n",
		"urls \".. _install:\"\nurls \".. _Acme: https://acme.example\\n   /docs\"\nurls \"__ https://anon.example\"\nmarkup \".. |product| replace:: Acme CLI\"\nmarkup \".. |logo| image:: logo.png\\n   :width: 20\"\nmarkup \".. [#f1]\"\nmarkup \".. [CIT2002]\"\n"},
	{"rst field lists", SyntaxRST,
		":orphan:\n:Author: Jane\n\n:param name: The name.\n:type name: str\n:returns: Nothing.\n\n:ref:`x` starts a line, not a field.\n",
		"markup \":orphan:\"\nmarkup \":Author: \"\nmarkup \":param name: \"\nmarkup \":type name: \"\nmarkup \":returns: \"\nurls \":ref:`x`\" +\n"},
	{"rst tables", SyntaxRST,
		"+-------+--------+\n| A     | B      |\n+=======+========+\n| x     | ``y``  |\n+-------+--------+\n\n=====  =====\nA      B\n=====  =====\nx      y\n=====  =====\n",
		"markup \"+-------+--------+\"\nmarkup \"|\"\nmarkup \"|\"\nmarkup \"|\"\nmarkup \"+=======+========+\"\nmarkup \"|\"\nmarkup \"|\"\ninlinecode \"``y``\" +\nmarkup \"|\"\nmarkup \"+-------+--------+\"\nmarkup \"=====  =====\"\nmarkup \"=====  =====\"\nmarkup \"=====  =====\"\n"},
	{"rst doctest blocks and transitions", SyntaxRST,
		"Text.\n\n>>> print(1)\n1\n\n----\n\nMore.\n",
		"code \">>> print(1)\\n1\"\nmarkup \"----\"\n"},
	{"rst a directive indented in a list", SyntaxRST,
		"* Item:\n\n  .. code-block:: sh\n\n     acme\n\n  Item prose.\n",
		"code \".. code-block:: sh\\n\\n     acme\"\n"},

	// HTML.
	{"html tags, attributes, comments, doctype", SyntaxHTML,
		"<!DOCTYPE html>\n<p class=\"x\" title=\"in order to\">Prose <b>bold</b>.</p>\n<!-- vectorlint-disable -->\n<?xml x?>\n",
		"html \"<!DOCTYPE html>\"\nhtml \"<p class=\\\"x\\\" title=\\\"in order to\\\">\"\nhtml \"<b>\"\nhtml \"</b>\"\nhtml \"</p>\"\nhtml \"<!-- vectorlint-disable -->\"\nhtml \"<?xml x?>\"\ncomment \"<!-- vectorlint-disable -->\"\n"},
	{"html code elements", SyntaxHTML,
		"<p>Run <code>acme</code>, press <kbd>K</kbd>, <samp>out</samp>, <var>n</var>, <tt>t</tt>.</p>\n<pre>pre\n<!-- vectorlint-disable -->\n</pre>\n",
		"html \"<p>\"\ninlinecode \"<code>acme</code>\" +\ninlinecode \"<kbd>K</kbd>\" +\ninlinecode \"<samp>out</samp>\" +\ninlinecode \"<var>n</var>\" +\ninlinecode \"<tt>t</tt>\" +\nhtml \"</p>\"\ncode \"<pre>pre\\n<!-- vectorlint-disable -->\\n</pre>\"\n"},
	{"html raw text elements", SyntaxHTML,
		"<script>if (a < b) { s = \"<!-- vectorlint-disable -->\" }</script>\n<style>p{}</style>\n<noscript><img src=x></noscript>\n<title>A title</title>\n<textarea>Text area</textarea>\n",
		"code \"<script>if (a < b) { s = \\\"<!-- vectorlint-disable -->\\\" }</script>\"\ncode \"<style>p{}</style>\"\nhtml \"<noscript><img src=x></noscript>\"\nhtml \"<title>\"\nhtml \"</title>\"\nhtml \"<textarea>\"\nhtml \"</textarea>\"\n"},
	{"html template, svg and math", SyntaxHTML,
		"<template><p>T</p></template>\n<svg><text>S</text><![CDATA[ x > y ]]></svg>\n<p>Let <math><mi>x</mi></math> be.</p>\n<math display=\"block\"><mi>y</mi></math>\n",
		"html \"<template><p>T</p></template>\"\nhtml \"<svg><text>S</text><![CDATA[ x > y ]]></svg>\"\nhtml \"<p>\"\nmath \"<math><mi>x</mi></math>\" +\nhtml \"</p>\"\nmath \"<math display=\\\"block\\\"><mi>y</mi></math>\"\n"},
	{"html nested and unclosed skipped elements", SyntaxHTML,
		"<pre><pre>a</pre>b</pre>c\n<code>never closed\n",
		"code \"<pre><pre>a</pre>b</pre>\"\ninlinecode \"<code>never closed\\n\" +\n"},
	{"html headings", SyntaxHTML,
		"<h1 id=\"t\">\n  Install <code>acme</code>\n</h1>\n<div><h2>Next</h2><p>Intro</p></div>\n<h3></h3>\n",
		"html \"<h1 id=\\\"t\\\">\"\ninlinecode \"<code>acme</code>\" +\nhtml \"</h1>\"\nhtml \"<div><h2>\"\nhtml \"</h2><p>\"\nhtml \"</p></div>\"\nhtml \"<h3></h3>\"\nheading 1 \"Install <code>acme</code>\" after \"<h1 id=\\\"t\\\">\\n  \"\nheading 2 \"Next\" after \"<h2>\"\n"},
	{"html URLs in text, not in attributes", SyntaxHTML,
		"<a href=\"https://a.example\">https://b.example</a> and www.c.example.\n",
		"html \"<a href=\\\"https://a.example\\\">\"\nurls \"https://b.example\" +\nhtml \"</a>\"\nurls \"www.c.example\" +\n"},

	// Plain text.
	{"text URLs only", SyntaxPlain,
		"See https://a.example/x_(y). Write to me@b.example; `code` and <b> stay.\n",
		"urls \"https://a.example/x_(y)\" +\nurls \"me@b.example\" +\n"},
}

// TestScanFormats runs formatCases. With UPDATE_FORMAT_CASES=file, it writes what it finds
// there instead (a tool for writing new cases, whose output is read before it is pasted).
func TestScanFormats(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, tt := range formatCases {
		got[tt.name] = describe(tt.src, tt.syn)
		if os.Getenv("UPDATE_FORMAT_CASES") != "" {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			if g := got[tt.name]; g != tt.want {
				t.Errorf("Scan(%v, %q):\n%s\nwant:\n%s", tt.syn, tt.src, g, tt.want)
			}
		})
	}
	if p := os.Getenv("UPDATE_FORMAT_CASES"); p != "" {
		data, _ := json.Marshal(got)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
