"""Settings of the example project: a news crawl that drops reprinted articles with nshash.

Run it against the bundled sample site (see ../README.md)::

    python sample_site.py --port 8000 &
    scrapy crawl news -a start_url=http://127.0.0.1:8000/ -O unique.jsonl
"""

BOT_NAME = "newsdedup"
SPIDER_MODULES = ["newsdedup.spiders"]
NEWSPIDER_MODULE = "newsdedup.spiders"
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"

# -- nshash: drop near-duplicate pages ------------------------------------------------
ITEM_PIPELINES = {"nshash.scrapy.DedupPipeline": 300}
NSHASH_NAME = "news"  # the index: news.hashdb (LevelDB) in the directory of the crawl
NSHASH_STORE = "leveldb"  # memory (news.hashdb.pkl), leveldb, or redis to share it between crawls
# NSHASH_STORE = "redis"
# NSHASH_REDIS_URL = "redis://localhost:6379/0"
NSHASH_FIELD = "content"  # the item field with the page text (str, bytes or raw HTML)
NSHASH_ACTION = "drop"  # drop near-duplicates; "tag" keeps them with similar_id and is_new set
NSHASH_OPTIONS = {"n": 5}  # nshash.NSHash options; the index remembers them
