// libxml2's HTML parser behind podq_html_links (see include/FeedXML.h): a web page's <link> and
// <base> elements, for finding the feed a website advertises. The network is never touched.
#include "FeedXML.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <string.h>

#include "XMLLibrary.h"

static const char *attribute(xmlNodePtr node, const char *name) {
    for (xmlAttrPtr a = node->properties; a; a = a->next) {
        if (a->name && strcasecmp((const char *)a->name, name) == 0 && a->children && a->children->content) {
            return (const char *)a->children->content;
        }
    }
    return NULL;
}

int podq_html_links(int fd, const char *encoding, void *context, void (*found)(void *context, const char *element, const char *rel,
                                                          const char *type, const char *href, const char *title)) {
    if (!podq_libxml_load(NULL, 0)) return -2;
    htmlDocPtr doc = htmlReadFd(fd, NULL, encoding,
                                HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_COMPACT);
    if (!doc) return -1;
    // Depth-first without recursion: a page nested ten thousand deep costs no stack.
    xmlNodePtr node = xmlDocGetRootElement(doc);
    while (node) {
        if (node->type == XML_ELEMENT_NODE && node->name) {
            const char *name = (const char *)node->name;
            if (strcasecmp(name, "link") == 0 || strcasecmp(name, "base") == 0 || strcasecmp(name, "a") == 0) {
                const char *href = attribute(node, "href");
                if (href) found(context, name, attribute(node, "rel"), attribute(node, "type"), href, attribute(node, "title"));
            }
        }
        if (node->children && node->type == XML_ELEMENT_NODE) {
            node = node->children;
            continue;
        }
        while (node && !node->next) {
            node = node->parent;
            if (node && (xmlNodePtr)doc == node) node = NULL;
        }
        if (node) node = node->next;
    }
    xmlFreeDoc(doc);
    return 0;
}

static int is_block(const char *name) {
    static const char *blocks[] = {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
                                   "blockquote", "pre", "hr", "section", "article", "header", "footer", "dt", "dd", "dl", NULL};
    for (int i = 0; blocks[i]; i++) {
        if (strcasecmp(name, blocks[i]) == 0) return 1;
    }
    return 0;
}

/// Leaving an element: a block ends, a link says where it points (after its text).
static void leave(xmlNodePtr node, void *context, void (*emit)(void *context, const char *text, int kind)) {
    if (node->type != XML_ELEMENT_NODE || !node->name) return;
    const char *name = (const char *)node->name;
    if (strcasecmp(name, "a") == 0) {
        const char *href = attribute(node, "href");
        if (href) emit(context, href, 3);
    } else if (is_block(name)) {
        emit(context, NULL, 1);
    }
}

int podq_html_text(const char *html, int length, void *context, void (*emit)(void *context, const char *text, int kind)) {
    if (!podq_libxml_load(NULL, 0)) return -2;
    htmlDocPtr doc = htmlReadMemory(html, length, NULL, "UTF-8",
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
                                        HTML_PARSE_COMPACT);
    if (!doc) return -1;
    xmlNodePtr node = xmlDocGetRootElement(doc);
    while (node) {
        int descend = 0;
        if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
            if (node->content) emit(context, (const char *)node->content, 0);
        } else if (node->type == XML_ELEMENT_NODE && node->name) {
            const char *name = (const char *)node->name;
            descend = !(strcasecmp(name, "script") == 0 || strcasecmp(name, "style") == 0 || strcasecmp(name, "head") == 0);
            if (descend && strcasecmp(name, "li") == 0) {
                emit(context, NULL, 2);
            } else if (descend && is_block(name)) {
                emit(context, NULL, 1);
            }
        }
        if (descend && node->children) {
            node = node->children;
            continue;
        }
        if (descend) leave(node, context, emit);
        while (node && !node->next) {
            node = node->parent;
            if (node && (xmlNodePtr)doc == node) node = NULL;
            if (node) leave(node, context, emit);
        }
        if (node) node = node->next;
    }
    xmlFreeDoc(doc);
    return 0;
}
