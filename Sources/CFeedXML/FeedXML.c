// libxml2's SAX2 parser behind podq_xml_parse_fd (see include/FeedXML.h).
//
// Entities: the document's own internal entities are expanded (XML_PARSE_NOENT, as corelibs'
// XMLParser does) under libxml2's amplification limits (XML_PARSE_HUGE stays off, so a billion
// laughs stops with XML_ERR_ENTITY_LOOP). Anything external is refused before libxml2 would load it:
// getEntity and getParameterEntity are ours and stop the parse at an external entity (libxml2's own
// xmlSAX2GetEntity would load it), resolveEntity loads nothing, externalSubset is unset so no DTD is
// fetched, and XML_PARSE_NONET forbids the network besides.
#include "FeedXML.h"

#include <errno.h>
#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <pthread.h>

#include "XMLLibrary.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct parse_state {
    const podq_xml_handler *handler;
    podq_xml_result *result;
} parse_state;


static parse_state *state_of(void *ctx) {
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    return ctxt ? (parse_state *)ctxt->_private : NULL;
}

static void stop(void *ctx) {
    parse_state *s = state_of(ctx);
    if (s) s->result->stopped = 1;
    xmlStopParser((xmlParserCtxtPtr)ctx);
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    (void)prefix; (void)nb_namespaces; (void)namespaces; (void)nb_defaulted;
    parse_state *s = state_of(ctx);
    if (s->handler->start(s->handler->context, (const char *)localname, (const char *)uri,
                          (const unsigned char **)attributes, nb_attributes) != 0) stop(ctx);
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)prefix;
    parse_state *s = state_of(ctx);
    s->handler->end(s->handler->context, (const char *)localname, (const char *)uri);
}

static void on_text(void *ctx, const xmlChar *bytes, int length) {
    parse_state *s = state_of(ctx);
    if (s->handler->text(s->handler->context, bytes, length) != 0) stop(ctx);
}

static void refuse_external(void *ctx) {
    parse_state *s = state_of(ctx);
    if (s) s->result->external = 1;
    xmlStopParser((xmlParserCtxtPtr)ctx);
}

static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name) {
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    xmlEntityPtr entity = xmlGetPredefinedEntity(name);
    if (entity != NULL || ctxt->myDoc == NULL) return entity;
    entity = xmlGetDocEntity(ctxt->myDoc, name);
    if (entity != NULL && entity->etype != XML_INTERNAL_GENERAL_ENTITY && entity->etype != XML_INTERNAL_PREDEFINED_ENTITY) {
        refuse_external(ctx);
        return NULL;
    }
    return entity;
}

static xmlEntityPtr on_get_parameter_entity(void *ctx, const xmlChar *name) {
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    if (ctxt->myDoc == NULL) return NULL;
    xmlEntityPtr entity = xmlGetParameterEntity(ctxt->myDoc, name);
    if (entity != NULL && entity->etype != XML_INTERNAL_PARAMETER_ENTITY) {
        refuse_external(ctx);
        return NULL;
    }
    return entity;
}

// An entity whose value refers to another general entity is the shape of every billion-laughs
// variant (and no real feed needs one): it is refused as it is declared, before libxml2 spends
// seconds expanding it up to its amplification limit (found by the FuzzFeed target: 665 bytes, 1.3 s).
// True when `name` starts with one of XML's five predefined entities and its `;`.
static int is_predefined(const xmlChar *name) {
    static const char *const predefined[] = {"amp;", "lt;", "gt;", "quot;", "apos;"};
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++) {
        if (strncmp((const char *)name, predefined[i], strlen(predefined[i])) == 0) return 1;
    }
    return 0;
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                           const xmlChar *system_id, xmlChar *content) {
    if (type == XML_INTERNAL_GENERAL_ENTITY && content != NULL) {
        for (const xmlChar *p = content; *p; p++) {
            if (p[0] == '&' && p[1] != '#' && p[1] != 0 && !is_predefined(p + 1)) {
                parse_state *s = state_of(ctx);
                if (s) s->result->entity_loop = 1;
                xmlStopParser((xmlParserCtxtPtr)ctx);
                return;
            }
        }
    }
    xmlSAX2EntityDecl(ctx, name, type, public_id, system_id, content);
}

static xmlParserInputPtr on_resolve_entity(void *ctx, const xmlChar *public_id, const xmlChar *system_id) {
    (void)public_id; (void)system_id;
    refuse_external(ctx);
    return NULL;
}

// Fatal errors only: they end the parse. Namespace errors and warnings (an undeclared prefix, say)
// leave a usable document, as in every feed reader.
static void on_error(void *ctx, xmlErrorPtr error) {
    parse_state *s = state_of(ctx);
    if (s == NULL || error == NULL || error->level != XML_ERR_FATAL) return;
    if (s->result->stopped || s->result->external) return;  // our own stop, not the document's error
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    if (error->code == XML_ERR_ENTITY_LOOP) {
        s->result->entity_loop = 1;
        xmlStopParser(ctxt);
    }
    if (ctxt->recovery) s->result->recovered += 1;
    if (s->result->code != 0) return;
    s->result->code = error->code != 0 ? error->code : -1;
    s->result->line = error->line;
    s->result->column = error->int2;
    if (error->message != NULL) {
        strncpy(s->result->message, error->message, sizeof s->result->message - 1);
        size_t n = strlen(s->result->message);
        while (n > 0 && (s->result->message[n - 1] == '\n' || s->result->message[n - 1] == ' ')) s->result->message[--n] = 0;
    }
}

int podq_xml_available(char *reason, unsigned long size) { return podq_libxml_load(reason, size); }

int podq_xml_parse_fd(int fd, const podq_xml_handler *handler, int recover, podq_xml_result *result) {
    memset(result, 0, sizeof *result);
    if (!podq_libxml_load(result->message, sizeof result->message)) {
        result->code = -1;
        result->unavailable = 1;
        return -4;
    }

    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    xmlSAXVersion(&sax, 2);  // the default SAX2 callbacks keep the DTD's entity declarations
    sax.startElement = NULL;
    sax.endElement = NULL;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_text;
    sax.ignorableWhitespace = on_text;
    sax.cdataBlock = on_text;
    sax.comment = NULL;
    sax.processingInstruction = NULL;
    sax.reference = NULL;
    sax.getEntity = on_get_entity;
    sax.getParameterEntity = on_get_parameter_entity;
    sax.resolveEntity = on_resolve_entity;
    sax.entityDecl = on_entity_decl;
    sax.externalSubset = NULL;
    sax.serror = on_error;
    sax.warning = NULL;
    sax.error = NULL;
    sax.fatalError = NULL;

    // The push parser: it hands CDATA sections over whole, where xmlParseDocument's pull parser
    // reads them a character at a time (a quarter of the time on CDATA-heavy feeds).
    parse_state state = {handler, result};
    xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL);
    if (ctxt == NULL) {
        result->code = -1;
        strcpy(result->message, "libxml2 could not start (out of memory?)");
        return result->code;
    }
    ctxt->_private = &state;
    xmlCtxtUseOptions(ctxt, XML_PARSE_NOENT | XML_PARSE_NONET | (recover ? XML_PARSE_RECOVER : 0));
    enum { chunk_size = 256 * 1024 };
    char *buffer = malloc(chunk_size);
    for (;;) {
        if (buffer == NULL) {
            result->code = -1;
            strcpy(result->message, "out of memory");
            break;
        }
        ssize_t n = read(fd, buffer, chunk_size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            result->code = -1;
            snprintf(result->message, sizeof result->message, "cannot read the file: %s", strerror(errno));
            break;
        }
        int status = xmlParseChunk(ctxt, buffer, (int)n, n == 0);
        if (n == 0 || result->external || result->stopped || ctxt->disableSAX) break;
        if (status != 0 && !ctxt->wellFormed && !recover) break;
    }
    free(buffer);
    if (!ctxt->wellFormed && result->code == 0 && !result->external && !result->stopped) {
        result->code = ctxt->errNo != 0 ? ctxt->errNo : -1;
        result->line = xmlSAX2GetLineNumber(ctxt);
        result->column = xmlSAX2GetColumnNumber(ctxt);
    }
    if (ctxt->myDoc != NULL) {
        xmlFreeDoc(ctxt->myDoc);
        ctxt->myDoc = NULL;
    }
    xmlFreeParserCtxt(ctxt);
    if (result->stopped) return -3;
    return result->external ? -2 : result->code;
}
