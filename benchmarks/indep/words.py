"""The word pools the simulation draws from: site names, menus, authors, notices, ads, synonyms.

Their order is part of the corpus: a draw picks by position, so reordering a pool changes every file.
"""

from __future__ import annotations

ZH_PRE = (
    "极客 码农 云端 开源 蓝点 小白 技术 软件 数码 飞鸟 星河 青柠 知行 墨客"
    " 电脑 学习 编程 运维 桌面 自由 红枫 白鲸 晨光 远航 北极 南风 程序员 极光"
).split()
ZH_SUF = "网 之家 社区 在线 博客 资讯 论坛 学堂 笔记 频道 百科 驿站 教程网 天地".split()
ZH_NAV = (
    "首页 新闻 科技 关于我们 教程 下载 软件 问答 专题 视频 社区 Linux"
    " 开源 数码 手机 办公 设计 编程 运维 游戏 排行榜 投稿 联系我们 App"
).split()
ZH_AUTH = (
    "小编 张伟 李娜 王强 刘洋 陈静 admin 老王 阿飞 编辑部 匿名 kevin"
    " 木子 云中鹤 技术小白 路人甲 杨帆 赵敏 孙悟空的猴 网友投稿"
).split()
ZH_TAGS = (
    "Linux GNOME 教程 入门 桌面 技巧 开源软件 设置 电子设计 PCB 图像处理"
    " 乐谱 游戏 办公 系统 网络 硬件 Ubuntu Debian 新手 FAQ"
).split()
#: Province abbreviations of ICP licence and 公网安备 numbers.
ZH_PROV = "京 沪 粤 浙 苏 川 鄂 闽 鲁 湘".split()

EN_PRE = (
    "Tech Linux Open Dev Code Byte Stack Daily Geek Cloud Pixel Admin Kernel Shell Data Query Hacker Unix Source"
    " Binary Packet Silicon Nerd Terminal"
).split()
EN_SUF = (
    "Hub Insider Journal Notes Planet Weekly Digest Corner Central Times Lab Zone Post Wire Garden Cafe Chronicle"
    " Review Bytes Point"
).split()
EN_NAV = (
    "Home|News|Tutorials|About|Contact|Reviews|Guides|Linux|Databases|Programming|Forum|Downloads|Newsletter|Jobs"
    "|Events|Podcast|Archive|Write for us|Shop|Topics"
).split("|")
EN_AUTH = (
    "John Smith|Emily Clarke|Raj Patel|Maria Gonzalez|Admin|Staff Writer|Tom K.|Liam O'Brien|Sarah Nguyen"
    "|Guest Author|Daniel Weber|Chris P.|Editorial Team|Anna Kowalski|Jake M."
).split("|")
EN_TAGS = (
    "linux|gnome|desktop|tutorial|beginners|perl|git|postgresql|sql|databases|programming|tips|how-to"
    "|version control|faq|open source|sysadmin|scripting"
).split("|")

#: Notices that many sites copy verbatim: text shared by unrelated pages.
ZH_BOILER = [
    "版权声明：本文内容由互联网用户自发贡献，该文观点仅代表作者本人。本站仅提供信息存储空间服务，不拥有所有权，不承担相关法律责任。如发现本站有涉嫌抄袭侵权/违法违规的内容，请发送邮件举报，一经查实，本站将立刻删除。",
    "免责声明：文章内容来源于网络，版权归原作者所有，如有侵权请联系我们删除。",
    "本站使用 Cookie 以改善您的浏览体验。继续浏览即表示您同意我们使用 Cookie。",
    "本文采用知识共享署名-相同方式共享 4.0 国际许可协议进行许可，转载请注明出处。",
    "扫描二维码关注我们的微信公众号，获取更多技术干货和最新资讯。",
    "声明：本文为转载文章，仅用于学习交流，不代表本站观点，如有问题请及时联系。",
    "温馨提示：本站所有资源仅供学习与参考，请勿用于商业用途，否则产生的一切后果将由您自己承担！",
]
EN_BOILER = [
    "This work is licensed under a Creative Commons Attribution-ShareAlike 4.0 International License.",
    "We use cookies to ensure that we give you the best experience on our website."
    " If you continue to use this site we will assume that you are happy with it.",
    "Disclaimer: The views expressed in this article are those of the author"
    " and do not necessarily reflect the official policy or position of this website.",
    "All trademarks are the property of their respective owners."
    " Content is provided for informational purposes only and comes without any warranty.",
    "Copyright belongs to the original author."
    " If this reprint infringes your rights, please contact us and we will remove it promptly.",
    "Subscribe to our newsletter to get the latest tutorials delivered straight to your inbox."
    " No spam, unsubscribe at any time.",
    "Some links on this page are affiliate links, which means we may earn a small commission at no extra cost to you.",
]
ZH_ADS = [
    "【广告】双十一云服务器限时特惠，新用户首年仅需 99 元，点击立即抢购！",
    "推荐阅读：2023 年最值得安装的十款开源软件",
    "▲点击上方蓝字关注我们，每天推送实用技巧",
    "【赞助】某某 VPS 主机，香港节点免备案，低至 19 元/月。",
    "相关推荐：新手必看的 Linux 常用命令大全（建议收藏）",
]
EN_ADS = [
    "ADVERTISEMENT",
    "Sponsored: Get 50% off managed cloud hosting this week only. Click here to claim the deal.",
    "Related: 10 Open Source Tools Every Developer Should Know in 2023",
    ">> Don't miss our free e-book on shell scripting. Download it now! <<",
    "Continue reading below",
]

#: Rewording: a word and its replacement (used both ways).
ZH_SYN = [
    tuple(pair.split("/"))
    for pair in (
        "您/你 可以/能够 如果/假如 单击/点击 使用/利用 然后/接着 选择/选取 打开/开启"
        " 因此/所以 需要/须要 例如/比如 显示/展示 文件/档案 计算机/电脑 应用程序/应用"
        " 但是/不过 可能/也许 设置/设定 窗口/视窗 目前/当前 所有/全部 非常/十分 立即/马上 通常/一般"
    ).split()
]
EN_SYN = [
    tuple(pair.split("/"))
    for pair in (
        "use/utilize|can/is able to|very/really|However/But|because/since|show/display|help/assist|need/require"
        "|start/begin|big/large|often/frequently|get/obtain|also/additionally|want/wish|easy/simple|example/instance"
        "|change/modify|choose/select|quickly/fast|many/numerous|important/crucial|make sure/ensure|about/regarding"
        "|usually/typically"
    ).split("|")
]
ZH_FILL = "事实上， 值得注意的是， 简单来说， 一般而言， 需要说明的是， 小编提示： 其实，".split()
EN_FILL = ["In fact, ", "Note that ", "Basically, ", "As you might expect, ", "Interestingly, ", "Simply put, "]

FULL2HALF = {
    "，": ",",
    "。": ".",
    "：": ":",
    "；": ";",
    "？": "?",
    "！": "!",
    "（": "(",
    "）": ")",
    "“": '"',
    "”": '"',
    "、": ",",
    "《": "<",
    "》": ">",
}
