"""Generated document fixtures whose pages, sections and texts are known (no binary file is committed):
PDFs (fpdf2), DOCX (python-docx), and hostile files (encrypted, truncated, corrupt PDFs; a DOCX zip
bomb; binary text). Used by the unit and integration tests and by the bench."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence


def pdf(pages: Sequence[str], *, password: str | None = None) -> bytes:
    """A PDF with one page per text (page n holds ``pages[n - 1]``)."""
    from fpdf import FPDF

    document = FPDF()
    document.set_font("helvetica", size=11)
    if password is not None:
        document.set_encryption(owner_password=password, user_password=password)
    for text in pages:
        document.add_page()
        document.multi_cell(0, 6, text)
    return bytes(document.output())


def docx(parts: Sequence[tuple[str, str | int]]) -> bytes:
    """A DOCX from ``("heading", level_and_title)``-like parts: ``("h1", "Title")``, ``("p", "text")`` and
    ``("break", 0)`` (an explicit page break); ``("h2:_Toc7", "Title")`` bookmarks the heading ``_Toc7``."""
    import docx as python_docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = python_docx.Document()
    for kind, value in parts:
        if kind == "break":
            document.add_page_break()
        elif kind.startswith("h"):
            level, _, bookmark = kind[1:].partition(":")
            heading = document.add_heading(str(value), int(level))
            if bookmark:
                start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
                start.set(qn("w:id"), "7")
                start.set(qn("w:name"), bookmark)
                end.set(qn("w:id"), "7")
                heading._p.insert(1, start)
                heading._p.append(end)
        else:
            document.add_paragraph(str(value))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def docx_bomb(inflated_bytes: int = 20 * 1024 * 1024) -> bytes:
    """A .docx-named zip whose document.xml inflates to ``inflated_bytes`` of spaces (a few hundred KB
    stored)."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open("word/document.xml", "w", force_zip64=True) as member,
    ):
        block = b" " * (1024 * 1024)
        for _ in range(inflated_bytes // len(block)):
            member.write(block)
    return buffer.getvalue()


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def corrupt_pdf() -> bytes:
    return b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ngarbage\n%%EOF\n"


BINARY_TEXT = bytes(range(256)) * 8


# Pages of the shapes documentation generators write, cut down to what sections and anchors depend on
# (tests/unit/test_document_sections.py holds each chunk's expected section path and anchor).

DOCBOOK_PAGE = b"""<!DOCTYPE html><html><head><title>8.1. Numeric Types</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr>
<th colspan="3">8.1. Numeric Types</th>
</tr><tr><td><a accesskey="p" href="datatype.html">Prev</a></td><th>Chapter 8. Data Types</th>
<td><a accesskey="n" href="datatype-money.html">Next</a></td></tr></table><hr></div>
<div class="sect1" id="DATATYPE-NUMERIC"><div class="titlepage"><div><div>
<h2 class="title" style="clear: both">
8.1. Numeric Types <a href="#DATATYPE-NUMERIC" class="id_link">#</a></h2></div></div></div>
<p>Numeric types consist of two-, four-, and eight-byte integers and selectable-precision decimals.</p>
<div class="sect2" id="DATATYPE-INT"><div class="titlepage"><div><div>
<h3 class="title">8.1.1. Integer Types</h3>
</div></div></div><p>The types smallint, integer, and bigint store whole numbers.</p>
<div class="note"><h3 class="title">Note</h3>
<p>Integer overflow raises an error rather than wrapping around.</p></div>
<p>The type integer is the common choice.</p></div>
<div class="sect2"><div class="titlepage"><div><div><h3 class="title">
<a name="DATATYPE-NUMERIC-DECIMAL"></a>
8.1.2. Arbitrary Precision Numbers</h3></div></div></div><p>The type numeric can store numbers with a very
large number of digits.</p></div>
<div class="sect2" id="DATATYPE-SERIAL"><div class="titlepage"><div><div>
<h3 class="title">8.1.4. Serial Types</h3>
</div></div></div>
<p>The data types smallserial, serial and bigserial are not true types, but merely a notational
convenience for creating unique identifier columns (an autoincrementing column).</p></div></div>
<div class="navfooter"><hr><table width="100%" summary="Navigation footer"><tr><td>
<a href="datatype.html">Prev</a>
</td><td><a href="datatype.html">Up</a></td><td><a href="datatype-money.html">Next</a></td></tr>
</table></div>
</body></html>"""

DOCBOOK_TOC_PAGE = b"""<html><head><title>Chapter 8. Data Types</title></head><body>
<div class="navheader"><a href="index.html">Prev</a> <a href="datatype-numeric.html">Next</a></div>
<div class="chapter" id="DATATYPE"><div class="titlepage"><div><div>
<h2 class="title">Chapter 8. Data Types</h2>
</div></div></div><div class="toc"><p><b>Table of Contents</b></p><dl class="toc">
<dt><span class="sect1"><a href="datatype-numeric.html">8.1. Numeric Types</a></span></dt>
<dd><dl><dt><span class="sect2">
<a href="datatype-numeric.html#DATATYPE-INT">8.1.1. Integer Types</a></span></dt>
</dl></dd><dt><span class="sect1"><a href="datatype-money.html">8.2. Monetary Types</a></span></dt>
</dl></div></div>
<div class="navfooter"><a href="index.html">Home</a></div></body></html>"""


def docbook_index_page(entries: int = 40) -> bytes:
    """A back-of-book index (DocBook's ``bookindex.html``): terms, each with a link or two."""
    terms = "".join(
        f'<dt>term {n}, <a class="indexterm" href="page{n}.html#ID{n}">Section about term {n}</a></dt>'
        for n in range(entries)
    )
    return (
        b'<html><body><div class="index" id="BOOKINDEX"><div class="titlepage"><h1>Index</h1></div>'
        b'<div class="indexdiv"><h3>T</h3><dl>' + terms.encode() + b"</dl></div></div></body></html>"
    )


SPHINX_PAGE = b"""<!DOCTYPE html><html><head><title>Getting Started</title>
<script id="documentation_options" src="_static/documentation_options.js"></script></head><body>
<div class="related" role="navigation"><h3>Navigation</h3><ul><li><a href="genindex.html">index</a>
</li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
<section id="getting-started"><h1>Getting Started<a class="headerlink" href="#getting-started"
title="Permalink to this heading">\xc2\xb6</a></h1><p>Sphinx is a documentation generator.</p>
<section id="setting-up">
<h2>Setting up the sources<a class="headerlink" href="#setting-up">\xc2\xb6</a></h2>
<p>The root directory of a Sphinx collection is called the source directory.</p>
<dl class="glossary">
<dt id="term-builder">builder<a class="headerlink" href="#term-builder">\xc2\xb6</a></dt>
<dd><p>A class that turns parsed documents into output.</p></dd></dl>
<section id="conf-py"><h3>The conf.py file<a class="headerlink" href="#conf-py">\xc2\xb6</a></h3>
<p>It holds the configuration values: the project's name, the extensions to load, the theme and every
option a builder reads.</p></section>
<p>Back in the section after its subsection: the sources can live in any folder, and the builder
reads them from there whenever the documentation is built again.</p></section>
<section id="running-the-build">
<h2>Running the build<a class="headerlink" href="#running-the-build">\xc2\xb6</a>
</h2><p>Run sphinx-build with the source folder and an output folder to make the HTML pages, which it
writes again only for the sources that changed since the last build.</p></section></section></div></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li>
<a href="#">Getting Started</a>
</li></ul></div></div><div class="footer" role="contentinfo">&#169; Copyright 2007-2022.</div>
</body></html>"""

MKDOCS_PAGE = b"""<!DOCTYPE html><html><head><title>Install - Project</title></head><body>
<div class="md-container"><header class="md-header"><a href="..">Project</a></header>
<nav class="md-nav md-nav--primary"><ul><li><a href="../">Home</a></li><li><a href="./">Install</a>
</li></ul></nav>
<div class="md-content"><article class="md-content__inner md-typeset">
<h1 id="install">Install<a class="headerlink" href="#install" title="Permanent link">&para;</a></h1>
<p>The tool installs from the package index on every platform that runs a supported version of
Python, and it needs no compiler.</p>
<h3 id="with-pip">With pip<a class="headerlink" href="#with-pip" title="Permanent link">&para;</a></h3>
<p>Run pip install project in a virtual environment, which keeps the tool and its dependencies apart
from the system's own Python packages.</p>
<h3 id="from-source">From source<a class="headerlink" href="#from-source" title="Permanent link">&para;</a>
</h3>
<p>Clone the repository and run the build, which compiles the extensions and installs the package
in development mode so that edits take effect at once.</p>
<h2 id="upgrading">Upgrading<a class="headerlink" href="#upgrading" title="Permanent link">&para;</a></h2>
<p>Upgrades keep the configuration file as it is, and a release that changes an option's meaning
says so in its notes and in a warning at start-up.</p>
</article></div><footer class="md-footer"><a href="../usage/">Next: Usage</a></footer></div></body>
</html>"""

JAVADOC_PAGE = b"""<!DOCTYPE HTML><html lang="en"><head><title>ArrayList (Java SE 17)</title></head>
<body class="class-declaration-page"><div class="flex-box"><header role="banner" class="flex-header">
<nav role="navigation"><ul id="navbar-top-firstrow"><li><a href="package-summary.html">Package</a>
</li></ul></nav>
</header><div class="flex-content"><main role="main"><div class="header">
<div class="sub-title">
<span class="package-label-in-type">Package</span>&nbsp;<a href="package-summary.html">java.util</a></div>
<h1 title="Class ArrayList" class="title">Class ArrayList&lt;E&gt;</h1></div>
<section class="class-description" id="class-description"><div class="block">Resizable-array implementation
of the List interface.</div></section>
<section class="details"><ul class="details-list"><li><section class="method-details" id="method-detail">
<h2>Method Details</h2><ul class="member-list"><li><section class="detail" id="trimToSize()">
<h3>trimToSize</h3><div class="member-signature">public void trimToSize()</div>
<div class="block">Trims the capacity of this ArrayList instance to be the list's current size.</div>
</section></li>
<li><section class="detail" id="add(E)"><h3>add</h3>
<div class="member-signature">public boolean add(E e)</div>
<div class="block">Appends the specified element to the end of this list.</div>
<dl class="notes"><dt>Parameters:</dt><dd><code>e</code> - element to be appended to this list</dd></dl>
</section></li></ul></section></li></ul></section></main></div></div></body></html>"""

JAVADOC8_PAGE = b"""<html><head><title>ArrayList (Java Platform SE 8)</title></head><body>
<div class="topNav"><a name="navbar.top"><!-- --></a><ul class="navList"><li>
<a href="overview-summary.html">
Overview</a></li></ul></div>
<div class="header"><div class="subTitle">java.util</div><h2 title="Class ArrayList" class="title">Class
ArrayList&lt;E&gt;</h2></div>
<div class="contentContainer"><div class="description"><div class="block">Resizable-array implementation of
the List interface.</div></div>
<div class="details"><ul class="blockList"><li class="blockList"><a name="method.detail"><!-- --></a>
<ul class="blockList"><li class="blockList"><h3>Method Detail</h3>
<a name="trimToSize--"><!-- --></a><ul class="blockList"><li class="blockList"><h4>trimToSize</h4>
<pre>public&nbsp;void&nbsp;trimToSize()</pre><div class="block">Trims the capacity of this instance.</div>
</li></ul><a name="add-E-"><!-- --></a><ul class="blockListLast"><li class="blockList"><h4>add</h4>
<pre>public&nbsp;boolean&nbsp;add(E&nbsp;e)</pre><div class="block">Appends the specified element.</div>
</li></ul></li></ul></li></ul></div></div>
<div class="bottomNav"><a name="navbar.bottom"><!-- --></a></div></body></html>"""

DOCBOOK_REFERENCE_PAGE = b"""<html><head><title>DECLARE</title></head><body>
<div class="navheader"><a href="sql-deallocate.html">Prev</a> <a href="sql-delete.html">Next</a></div>
<div class="refentry" id="SQL-DECLARE"><div class="titlepage"></div>
<div class="refnamediv"><h2><span class="refentrytitle">DECLARE</span></h2>
<p>DECLARE &#8212; define a cursor</p></div>
<div class="refsynopsisdiv"><h2>Synopsis</h2>
<pre class="synopsis">DECLARE name [ BINARY ] [ ASENSITIVE | INSENSITIVE ]
    CURSOR [ { WITH | WITHOUT } HOLD ] FOR query</pre></div>
<div class="refsect1" id="SQL-DECLARE-DESCRIPTION"><h2>Description</h2>
<p>DECLARE allows a user to create cursors,
which can be used to retrieve a small number of rows at a time out of a larger query. After the cursor is
created, rows are fetched from it using FETCH.</p></div>
<div class="refsect1" id="SQL-DECLARE-NOTES"><h2>Notes</h2><p>Normal cursors return data in text format.</p>
<div class="refsect2" id="SQL-DECLARE-HOLD"><h3>Holdable cursors</h3>
<p>A holdable cursor can be used after the
transaction that created it successfully commits, because its rows are materialized when that transaction
commits, at a cost in memory or temporary disk space that grows with the size of the result.</p></div></div>
</div></body></html>"""
