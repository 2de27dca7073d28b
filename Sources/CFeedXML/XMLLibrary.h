// libxml2, loaded with dlopen when the first feed, OPML file or web page is parsed, not linked: a
// linked libxml2 brought ICU and the C++ runtime into every podq process, 1.1 MB of memory for a
// download that parses nothing (docs/PERFORMANCE.md, "Where one download's memory goes").
// FeedXML.c and HTMLLinks.c include this after libxml2's headers; their calls to libxml2 then go
// through the table below, filled once by podq_libxml_load.
#ifndef PODQ_XML_LIBRARY_H
#define PODQ_XML_LIBRARY_H

#include <libxml/HTMLparser.h>
#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#define PODQ_LIBXML_FUNCTIONS(F)                                                                         \
    F(xmlInitParser)                                                                                     \
    F(xmlCreatePushParserCtxt)                                                                           \
    F(xmlCtxtUseOptions)                                                                                 \
    F(xmlParseChunk)                                                                                     \
    F(xmlStopParser)                                                                                     \
    F(xmlFreeParserCtxt)                                                                                 \
    F(xmlFreeDoc)                                                                                        \
    F(xmlSAXVersion)                                                                                     \
    F(xmlSAX2EntityDecl)                                                                                 \
    F(xmlSAX2GetLineNumber)                                                                              \
    F(xmlSAX2GetColumnNumber)                                                                            \
    F(xmlGetPredefinedEntity)                                                                            \
    F(xmlGetDocEntity)                                                                                   \
    F(xmlGetParameterEntity)                                                                             \
    F(xmlDocGetRootElement)                                                                              \
    F(htmlReadFd)                                                                                        \
    F(htmlReadMemory)

#define PODQ_LIBXML_FIELD(name) __typeof__(name) *name;
typedef struct podq_libxml {
    PODQ_LIBXML_FUNCTIONS(PODQ_LIBXML_FIELD)
} podq_libxml;
#undef PODQ_LIBXML_FIELD

/// libxml2's functions, once podq_libxml_load has returned 1.
extern podq_libxml podq_libxml_api;

/// Loads libxml2 (libxml2.so.2) and its functions, once for the process, and initialises its parser.
/// Returns 1 when every function is there; else 0, with why (dlerror's words) in `reason`.
int podq_libxml_load(char *reason, unsigned long size);

#ifndef PODQ_XML_LIBRARY_IMPLEMENTATION
#define xmlInitParser podq_libxml_api.xmlInitParser
#define xmlCreatePushParserCtxt podq_libxml_api.xmlCreatePushParserCtxt
#define xmlCtxtUseOptions podq_libxml_api.xmlCtxtUseOptions
#define xmlParseChunk podq_libxml_api.xmlParseChunk
#define xmlStopParser podq_libxml_api.xmlStopParser
#define xmlFreeParserCtxt podq_libxml_api.xmlFreeParserCtxt
#define xmlFreeDoc podq_libxml_api.xmlFreeDoc
#define xmlSAXVersion podq_libxml_api.xmlSAXVersion
#define xmlSAX2EntityDecl podq_libxml_api.xmlSAX2EntityDecl
#define xmlSAX2GetLineNumber podq_libxml_api.xmlSAX2GetLineNumber
#define xmlSAX2GetColumnNumber podq_libxml_api.xmlSAX2GetColumnNumber
#define xmlGetPredefinedEntity podq_libxml_api.xmlGetPredefinedEntity
#define xmlGetDocEntity podq_libxml_api.xmlGetDocEntity
#define xmlGetParameterEntity podq_libxml_api.xmlGetParameterEntity
#define xmlDocGetRootElement podq_libxml_api.xmlDocGetRootElement
#define htmlReadFd podq_libxml_api.htmlReadFd
#define htmlReadMemory podq_libxml_api.htmlReadMemory
#endif

#endif
