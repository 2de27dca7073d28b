// zlib behind podq_gunzip (see include/FeedXML.h): a feed whose bytes are still gzip or zlib after
// HTTP's own decoding (a body compressed twice, a .xml.gz served as it is).
#include "FeedXML.h"

#include <unistd.h>
#include <zlib.h>

long long podq_gunzip(int in, int out, long long limit) {
    z_stream stream = {0};
    // 15 + 32: a gzip or a zlib header, found by itself.
    if (inflateInit2(&stream, 15 + 32) != Z_OK) return -1;
    unsigned char input[65536], output[65536];
    long long total = 0;
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        ssize_t n = read(in, input, sizeof input);
        if (n < 0) { inflateEnd(&stream); return -1; }
        if (n == 0) break;
        stream.next_in = input;
        stream.avail_in = (uInt)n;
        while (stream.avail_in > 0 && status != Z_STREAM_END) {
            stream.next_out = output;
            stream.avail_out = sizeof output;
            status = inflate(&stream, Z_NO_FLUSH);
            if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) { inflateEnd(&stream); return -1; }
            size_t produced = sizeof output - stream.avail_out;
            total += (long long)produced;
            if (total > limit) { inflateEnd(&stream); return -2; }
            for (size_t done = 0; done < produced;) {
                ssize_t w = write(out, output + done, produced - done);
                if (w <= 0) { inflateEnd(&stream); return -1; }
                done += (size_t)w;
            }
            if (status == Z_BUF_ERROR && produced == 0) break;
        }
    }
    inflateEnd(&stream);
    return status == Z_STREAM_END ? total : -1;
}
