// libxml2's HTML parser behind podq_html_links (see include/FeedXML.h): a web page's <link> and
// <base> elements, for finding the feed a website advertises. The network is never touched.
#include "FeedXML.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <string.h>

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
