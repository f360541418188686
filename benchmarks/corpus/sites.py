"""Simulated web sites: the boilerplate each one wraps around every page.

A site's header, footer and layout habits are drawn once and then applied to
every page it publishes, related or not. On "heavy" sites two to four footer
sentences are as long as or longer than typical content sentences: the
2019 algorithm fingerprints the longest sentences, so on those sites it
fingerprints the footer and calls unrelated articles duplicates.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .edits import Page, person

_CURLY_OPEN = re.compile(r'(?:^|(?<=\s))"')
_CURLY_CLOSE = re.compile(r'"')

# --- names -------------------------------------------------------------------

_ZH_HEAD = (
    ("云帆", "yunfan"), ("极客", "jike"), ("蓝海", "lanhai"), ("星河", "xinghe"), ("东岳", "dongyue"),
    ("青松", "qingsong"), ("飞鸟", "feiniao"), ("白鹭", "bailu"), ("长风", "changfeng"),
    ("北辰", "beichen"), ("晨曦", "chenxi"), ("锦程", "jincheng"), ("知行", "zhixing"),
    ("墨客", "moke"), ("未来", "weilai"), ("数码", "shuma"), ("码农", "manong"), ("天枢", "tianshu"),
    ("启明", "qiming"), ("江南", "jiangnan"), ("远航", "yuanhang"), ("清泉", "qingquan"),
    ("赤兔", "chitu"), ("火山", "huoshan"),
)  # fmt: skip
_ZH_TAIL = (
    ("科技网", "tech"), ("资讯网", "news"), ("技术社区", "dev"), ("日报", "daily"), ("在线", "online"),
    ("博客", "blog"), ("观察", "view"), ("学院", "edu"), ("之家", "home"), ("新闻网", "cn"),
    ("周刊", "weekly"), ("开源站", "oss"),
)  # fmt: skip
_EN_HEAD = (
    "Byte", "Kernel", "Penguin", "Terminal", "Shell", "Package", "Sysadmin", "Distro", "Root",
    "Stack", "Daemon", "Pixel", "Binary", "Cloud", "Harbor", "Signal", "Open", "Vector", "Cobalt",
    "Maple", "Granite", "Lantern", "Orbit", "Summit",
)  # fmt: skip
_EN_TAIL = (
    "Weekly", "Post", "Gazette", "Digest", "Chronicle", "Tribune", "Times", "Journal", "Hub",
    "Review", "Ledger", "Herald",
)  # fmt: skip


def site_names(lang: str, rng: random.Random) -> list[tuple[str, str]]:
    """Every (name, domain) combination for ``lang``, shuffled by ``rng``."""
    if lang == "zh":
        names = [(h + t, f"www.{hp}{tp}.com") for h, hp in _ZH_HEAD for t, tp in _ZH_TAIL]
    else:
        tlds = (".com", ".net", ".org", ".io")
        names = [
            (f"{h} {t}", f"{h.lower()}{t.lower()}{tlds[(i + j) % 4]}")
            for i, h in enumerate(_EN_HEAD)
            for j, t in enumerate(_EN_TAIL)
        ]
    rng.shuffle(names)
    return names


def pick_names(lang: str, names: list[tuple[str, str]], taken: set[str], n: int) -> list[tuple[str, str]]:
    """``n`` names not in ``taken`` (which is updated), no two with the same first word."""
    heads: set[str] = set()
    out = []
    for name, domain in names:
        head = name[:2] if lang == "zh" else name.split()[0]
        if name in taken or head in heads:
            continue
        heads.add(head)
        taken.add(name)
        out.append((name, domain))
        if len(out) == n:
            return out
    raise ValueError(f"only {len(out)} unused {lang} site names left, {n} wanted")


# --- boilerplate pools ---------------------------------------------------------
# Long sentences are assembled from clause pools so that sites differ in
# wording, as real sites do, while sharing the usual phrases.

_ZH_NAV = (
    "首页 | 资讯 | 技术 | 开源 | 运维 | 数据库 | 云计算 | 专题 | 下载",
    "首页 > {channel} > 正文",
    "当前位置：首页 > {channel} > 正文",
    "{site} - 首页 - 新闻 - 科技 - 教程 - 关于我们",
    "登录 | 注册 | 投稿 | 手机版 | 订阅",
)
_ZH_CHANNELS = ("技术", "开源", "运维", "教程", "资讯", "系统", "软件", "Linux")
_ZH_META = (
    "{date}　来源：{site}　作者：{author}",
    "发布时间：{date}　浏览：{views}次",
    "{date}　阅读 {views}　评论 {comments}",
    "字号：大 中 小　{date}　分享到：",
)
_ZH_DISCLAIMER_LEAD = ("免责声明：", "郑重声明：", "特别声明：", "声明：", "")
_ZH_DISCLAIMER = (
    "本站所发布的文章及图片部分来源于互联网或网友投稿",
    "仅供学习交流和传递更多信息之用",
    "版权归原作者所有",
    "文章内容不代表本站观点和立场",
    "本站不对其内容的真实性、准确性和完整性承担任何责任",
    "读者仅作参考并请自行核实相关内容",
    "转载的目的在于传递更多信息，并不意味着赞同其观点或证实其描述",
    "如涉及作品内容、版权和其它问题，请在三十日内与本网联系",
    "对于因使用本站信息而引起的任何直接或间接损失，本站概不承担法律责任",
)
_ZH_INFRINGE = (
    "本文来源于网络，如有侵权请联系删除",
    "部分内容来自网络，如有侵权请告知删除",
    "文章转载自互联网，若侵犯了您的权益请联系我们删除",
    "本站部分文章来自网络转载，版权归原作者所有，如有侵权请联系本站处理",
)
_ZH_INFRINGE_TAIL = (
    "我们将在收到通知后的二十四小时内及时处理，感谢您对{site}的支持与理解",
    "我们会在第一时间核实并删除相关内容，给您带来的不便敬请谅解",
    "请发送邮件至{email}并附上权属证明，我们核实后将立即删除",
)
_ZH_COPYRIGHT = (
    "未经书面授权，任何单位及个人不得转载、摘编、复制或利用其他方式使用本网站的全部或部分内容，违者将依法追究法律责任",
    "本网站所刊登的各种新闻、信息和各种专题专栏资料均为{site}版权所有，未经协议授权禁止下载使用或建立镜像",
    "凡本网注明“来源：{site}”的所有作品，版权均属于{company}，未经本网授权不得转载、摘编或利用其它方式使用上述作品",
)
_ZH_LICENSE = (
    "除特别注明外，本站所有文章均采用知识共享署名-非商业性使用-相同方式共享4.0国际许可协议进行许可，转载请注明出处并保留原文链接及作者信息",
    "本站原创内容遵循署名-相同方式共享协议，欢迎在保留作者署名和原文链接{domain}的前提下转载，商业转载请联系作者获得授权",
)
_ZH_SUBSCRIBE = (
    "关注{site}微信公众号，每天为您推送最新的科技资讯、深度报道和实用教程，扫描下方二维码即可订阅，还可以参与每周的读者互动和赠书活动",
    "订阅{site}的每周精选邮件，第一时间获取开源社区动态、系统运维技巧和开发者工具推荐，我们承诺不会向任何第三方泄露您的邮箱地址",
    "欢迎加入{site}读者交流群，与数万名技术爱好者一起讨论Linux系统管理、软件打包和开源项目开发中遇到的各种问题，入群方式见网站首页公告",
)
_ZH_SUBMIT = (
    "{site}长期征集原创技术文章、开源项目介绍和使用心得，一经采用即付稿酬，投稿邮箱{email}，请在邮件标题中注明“投稿”字样并附上作者简介",
)
_ZH_SHORT = (
    "版权所有 © {y1}-{y2} {company}",
    "{icp}",
    "联系我们：{email}",
    "客服电话：{phone}　工作时间：周一至周五 9:00-18:00",
    "Copyright © {y2} {domain} All Rights Reserved.",
    "返回顶部",
    "上一篇：{other}",
    "分享到：微信 微博 QQ空间",
)
_ZH_COMPANY = ("{head}网络科技有限公司", "{head}信息技术有限公司", "{head}传媒集团", "{head}文化传播有限公司")
_ZH_PROVINCES = "京沪粤浙苏川鄂湘闽鲁"

_EN_NAV = (
    "Home | News | Tutorials | Reviews | Open Source | Security | About",
    "Home > {channel} > Article",
    "{site} — Home · Latest · Guides · Newsletter · Sign in",
    "Menu Search Subscribe Log in",
)
_EN_CHANNELS = ("Linux", "Open Source", "Tutorials", "Sysadmin", "Programming", "Debian")
_EN_META = (
    "Published {date} · {minutes} min read",
    "{date} | {views} views | {comments} comments",
    "Last updated: {date}",
    "Share on Twitter · Share on Facebook · Copy link",
)
_EN_COPYRIGHT = (
    "Copyright © {y1}-{y2} {company}. All rights reserved. This material may not be published, broadcast, rewritten, "
    "or redistributed in whole or in part without the express written permission of {company}, and any unauthorised "
    "use will be pursued to the fullest extent of the law.",
    "All content on {site} is protected by copyright. You may print or download extracts for your personal and "
    "non-commercial use only; reproduction of any part of this website in any form without our prior written consent "
    "is prohibited.",
)
_EN_DISCLAIMER = (
    "Disclaimer: The views and opinions expressed in this article are those of the authors and do not necessarily "
    "reflect the official policy or position of {site}. The information is provided for general information purposes "
    "only, and we make no representations or warranties of any kind about its completeness, accuracy or reliability.",
    "Disclaimer: {site} aggregates articles from publicly available sources for educational purposes. Any reliance "
    "you place on such information is strictly at your own risk, and in no event will we be liable for any loss or "
    "damage arising from the use of this website.",
    "The content on this page is provided as is, without warranty of any kind. Commands and configuration examples "
    "should be tested in a safe environment before being used on production systems; {site} accepts no liability "
    "for data loss, downtime or other damage.",
)
_EN_INFRINGE = (
    "This article was automatically collected from publicly available sources on the internet. If you believe that "
    "any content on this page infringes your copyright, please contact {email} and we will remove it within 24 hours.",
    "Some of the content on this site is republished from other websites with attribution. If you are the owner of "
    "any material and do not wish it to appear here, please let us know at {email} and it will be taken down promptly.",
)
_EN_LICENSE = (
    "Except where otherwise noted, content on this site is licensed under a Creative Commons Attribution-ShareAlike "
    "4.0 International License. Trademarks and brands mentioned on {site} are the property of their respective owners.",
    "Unless stated otherwise, articles on {domain} may be shared under the terms of the Creative Commons "
    "Attribution 4.0 license, provided that you credit the author and link back to the original page.",
)
_EN_SUBSCRIBE = (
    "Subscribe to the {site} newsletter to get the latest tutorials, deep dives and release notes delivered straight "
    "to your inbox every week. You can unsubscribe at any time, and we never share your email address with third "
    "parties.",
    "Enjoyed this article? Support independent technical journalism by becoming a member of {site}: members get "
    "early access to our guides, an ad-free reading experience and a monthly Q&A session with our editors.",
    "We use cookies to improve your experience on our website and to show you relevant advertising. By continuing "
    "to browse {site}, you agree to our use of cookies as described in our Privacy Policy, which you can review at "
    "any time.",
)
_EN_SHORT = (
    "© {y2} {company}",
    "Contact us: {email}",
    "Privacy Policy | Terms of Use | Cookie Settings",
    "Back to top",
    "Previous article: {other}",
    "Follow us on Mastodon, LinkedIn and RSS",
)
_EN_COMPANY = ("{head} Media Ltd", "{head} Publishing LLC", "{head} Digital Inc.", "The {head} Group")


@dataclass
class Site:
    """A simulated site: its boilerplate and layout habits."""

    name: str
    domain: str
    lang: str
    profile: str  # "heavy", "light" or "none"
    header: list[str]
    footer: list[str]
    meta: str  # per-page line with date/views, "" for none
    title_suffix: str
    blank_lines: bool
    crlf: bool
    indent: str
    html: bool
    punct: bool  # zh: ASCII punctuation; en: curly quotes
    weight: float
    # Corpus v2 habits (corpus/hard.py); empty for v1 sites.
    shared_top: list[str] = field(default_factory=list)  # verbatim notices shared with other sites
    shared_bottom: list[str] = field(default_factory=list)
    glue: str = ""  # site name glued to the first paragraph
    related: int = 0  # number of other titles in a "related" list
    related_head: str = ""
    wrap: int = 0  # hard-wrap width in columns, 0 for none


def _zh_long(rng: random.Random, fill: dict[str, str], k: int) -> list[str]:
    kinds = rng.sample(("disclaimer", "infringe", "copyright", "license", "subscribe", "submit"), k)
    out = []
    for kind in kinds:
        if kind == "disclaimer":
            clauses = rng.sample(_ZH_DISCLAIMER, rng.randint(3, 5))
            line = rng.choice(_ZH_DISCLAIMER_LEAD) + "，".join(clauses) + "。"
        elif kind == "infringe":
            line = rng.choice(_ZH_INFRINGE) + "，" + rng.choice(_ZH_INFRINGE_TAIL) + "。"
        elif kind == "copyright":
            line = "版权所有：" + rng.choice(_ZH_COPYRIGHT) + "。"
        else:
            pool = {"license": _ZH_LICENSE, "subscribe": _ZH_SUBSCRIBE, "submit": _ZH_SUBMIT}[kind]
            line = rng.choice(pool) + "。"
        out.append(line.format(**fill))
    return out


def _en_long(rng: random.Random, fill: dict[str, str], k: int) -> list[str]:
    pools = (_EN_COPYRIGHT, _EN_DISCLAIMER, _EN_INFRINGE, _EN_LICENSE, _EN_SUBSCRIBE)
    return [rng.choice(pool).format(**fill) for pool in rng.sample(pools, k)]


def make_sites(lang: str, names: list[tuple[str, str]], rng: random.Random) -> list[Site]:
    """Draw a site for each (name, domain): profile, boilerplate, habits, popularity.

    45% of sites (rounded) are "heavy" (2-4 long footer sentences), 30%
    "light" (short lines only) and the rest have no boilerplate at all.
    """
    n = len(names)
    # Fixed shares, so that tune and held-out files get the same mix.
    profiles = ["heavy"] * round(0.45 * n) + ["light"] * round(0.3 * n)
    profiles += ["none"] * (n - len(profiles))
    rng.shuffle(profiles)
    sites = []
    for rank, (name, domain) in enumerate(names):
        zh = lang == "zh"
        head = name[:2] if zh else name.split()[0]
        y2 = rng.randint(2019, 2024)
        fill = {
            "site": name,
            "domain": domain,
            "company": rng.choice(_ZH_COMPANY if zh else _EN_COMPANY).format(head=head),
            "email": f"{rng.choice(('editor', 'service', 'contact', 'tougao', 'admin'))}@{domain.removeprefix('www.')}",
            "y1": str(y2 - rng.randint(3, 15)),
            "y2": str(y2),
            "icp": f"{rng.choice(_ZH_PROVINCES)}ICP备{rng.randint(10**7, 10**8 - 1)}号-{rng.randint(1, 9)}",
            "phone": f"400-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
            "channel": rng.choice(_ZH_CHANNELS if zh else _EN_CHANNELS),
            "other": "{other}",  # filled per page
        }
        profile = profiles[rank]
        header: list[str] = []
        footer: list[str] = []
        meta = ""
        shorts = _ZH_SHORT if zh else _EN_SHORT
        if profile != "none":
            header = [rng.choice(_ZH_NAV if zh else _EN_NAV).format(**fill)]
            meta = rng.choice(_ZH_META if zh else _EN_META) if rng.random() < 0.7 else ""
            footer = [s.format(**fill) for s in rng.sample(shorts, rng.randint(1, 3))]
        if profile == "heavy":
            longs = (_zh_long if zh else _en_long)(rng, fill, rng.randint(2, 4))
            # Some sites put a notice above the article too.
            if rng.random() < 0.25:
                header.append(longs.pop())
            footer = longs + footer
            rng.shuffle(footer)
        suffix = ""
        if rng.random() < 0.35:
            suffix = rng.choice(("_{}", " - {}", "｜{}") if zh else (" | {}", " - {}", " — {}")).format(name)
        sites.append(
            Site(
                name=name,
                domain=domain,
                lang=lang,
                profile=profile,
                header=header,
                footer=footer,
                meta=meta,
                title_suffix=suffix,
                blank_lines=rng.random() < 0.35,
                crlf=rng.random() < 0.15,
                indent=("\u3000\u3000" if zh else "    ") if rng.random() < (0.3 if zh else 0.1) else "",
                html=rng.random() < 0.12,
                punct=rng.random() < (0.1 if zh else 0.3),
                # Zipf-like popularity: a few big sites, a long tail of small ones.
                weight=1.0 / (rank + 1) ** 0.8,
            )
        )
    return sites


def _fill_page_fields(line: str, site: Site, date: str, rng: random.Random, other: str) -> str:
    return line.format(
        date=date,
        site=site.name,
        author=person(site.lang, rng),
        views=rng.randint(12, 98000),
        comments=rng.randint(0, 300),
        minutes=rng.randint(2, 15),
        other=other,
    )


def render(
    site: Site,
    page: Page,
    date: str,
    rng: random.Random,
    other_title: str,
    top: Sequence[str] = (),
    bottom: Sequence[str] = (),
) -> str:
    """The text a crawler would extract from ``page`` published on ``site``.

    Layout: title line, header lines, ``top``, a per-page meta line, byline,
    body, trailing lines, footer, ``bottom``. The title stays first, as
    scrapers put it.
    """
    zh = site.lang == "zh"
    body = list(page.paras)
    if site.indent:
        body = [site.indent + p if p else p for p in body]
    if site.punct and zh:
        table = {"，": ",", "。": ".", "；": ";", "：": ":", "？": "?", "！": "!"}
        body = ["".join(table.get(c, c) for c in p) for p in body]
    elif site.punct:
        body = [_CURLY_CLOSE.sub("”", _CURLY_OPEN.sub("“", p)).replace("'", "’") for p in body]
    if site.html:
        body = [f"<p>{p}</p>" if p else p for p in body]
    meta = [_fill_page_fields(site.meta, site, date, rng, other_title)] if site.meta else []
    lines = [
        page.title + site.title_suffix,
        *(h.replace("{other}", other_title) for h in site.header),
        *top,
        *meta,
        *page.lead,
        *body,
        *page.tail,
        *(f.replace("{other}", other_title) for f in site.footer),
        *bottom,
    ]
    text = ("\n\n" if site.blank_lines else "\n").join(lines)
    return text.replace("\n", "\r\n") if site.crlf else text
